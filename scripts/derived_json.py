"""The command line the derive_* scripts share: derive a JSON document, write it to OUT_JSON."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def write_derived(derive: Callable[[], dict[str, Any]], usage: str, argv: list[str]) -> int:
    """`usage` is the script's docstring, whose last line says how to run it."""
    if len(argv) != 2:
        print(usage.strip().splitlines()[-1], file=sys.stderr)
        return 2
    Path(argv[1]).write_text(json.dumps(derive(), indent=1) + "\n")
    return 0
