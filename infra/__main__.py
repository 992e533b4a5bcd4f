"""`python -m infra ...`, the offline tools' former command, kept for one release: it says that
the command is now `hyperpod-dpd` and runs it (tools/cli.py).

Nothing imports this module: `pulumi up` runs __main__.py at the project's root, which never
reaches the tools (tests/test_import_graph.py).
"""

import sys

from tools.cli import run

print(
    "`python -m infra` is now `.venv/bin/hyperpod-dpd` (`make setup` installs it); "
    "this form goes in the next release",
    file=sys.stderr,
)
sys.exit(run())
