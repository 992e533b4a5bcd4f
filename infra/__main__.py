"""`python -m infra ...`, the offline tools' former command, kept for one release: it runs
`hyperpod-dpd` (tools/cli.py) and, at a terminal, says that the command moved. Scripts, such as
the offline diff running a base revision's render, get the output alone.

Nothing imports this module: `pulumi up` runs __main__.py at the project's root, which never
reaches the tools (tests/test_import_graph.py).
"""

import sys

from tools.cli import run

if sys.stderr.isatty():
    print(
        "`python -m infra` is now `.venv/bin/hyperpod-dpd` (`make setup` installs it); "
        "this form goes in the next release",
        file=sys.stderr,
    )
sys.exit(run())
