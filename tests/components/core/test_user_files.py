"""A file a stack setting names is read only when it is a file of a sane size: /dev/zero, a
FIFO or a directory would hang or fill memory (issue 21, section 1)."""

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from components.model.hf_config import MAX_CONFIG_BYTES
from tests.stack_changes import EP, Change, cli_refusal


def architecture_file(make: Callable[[Path], Path]) -> Change:
    def change(config: dict[str, Any], tmp: Path) -> None:
        config["hyperpod-dpd:endpoints"][0]["architecture"] = {
            "configFile": str(make(tmp)),
            "parameters": 70.6e9,
        }

    return change


def _fifo(tmp: Path) -> Path:
    os.mkfifo(tmp / "config.json")
    return tmp / "config.json"


def _huge(tmp: Path) -> Path:
    (tmp / "config.json").write_text(" " * (MAX_CONFIG_BYTES + 1))
    return tmp / "config.json"


CLI_REFUSED = {
    "configFile naming /dev/zero, which never ends": (
        architecture_file(lambda _: Path("/dev/zero")),
        f"{EP}.architecture.configFile: /dev/zero: is a character device, not a file",
    ),
    "configFile naming a FIFO, which blocks a read": (
        architecture_file(_fifo),
        f"{EP}.architecture.configFile: {{tmp}}/config.json: is a named pipe (FIFO), not a file",
    ),
    "configFile naming a directory": (
        architecture_file(lambda tmp: tmp),
        f"{EP}.architecture.configFile: {{tmp}}: is a directory, not a file",
    ),
    "configFile naming a file past its size cap": (
        architecture_file(_huge),
        f"{EP}.architecture.configFile: {{tmp}}/config.json: is larger than 4 MiB, more than "
        "such a file holds",
    ),
}


@pytest.mark.parametrize("case", CLI_REFUSED)
def test_what_crashed_or_hung_is_one_line(tmp_path, capsys, case):
    change, line = CLI_REFUSED[case]
    assert cli_refusal(tmp_path, capsys, change) == [line.format(tmp=tmp_path)]
