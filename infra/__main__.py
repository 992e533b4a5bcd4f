"""`python -m infra ...`: the offline tools' command line, which lives in tools/cli.py.

Nothing imports this module: `pulumi up` runs __main__.py at the project's root, which never
reaches the tools (tests/test_import_graph.py).
"""

import sys

from tools.cli import run

sys.exit(run())
