"""`python -m infra ...`, the offline tools' former command, kept for one release: it runs
`hyperpod-dpd` and, at a terminal, says that the command moved. Nothing on the deploy path
imports it (tests/test_import_graph.py)."""

import sys

from tools.cli import run

if sys.stderr.isatty():
    print(
        "`python -m infra` is now `.venv/bin/hyperpod-dpd` (`make setup` installs it); "
        "this form goes in the next release",
        file=sys.stderr,
    )
sys.exit(run())
