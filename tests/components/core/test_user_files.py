"""A file a stack setting names is read only when it is a file of a sane size: /dev/zero, a
FIFO or a directory would hang or fill memory."""

import os
from pathlib import Path

import pytest

from components.model.hf_config import MAX_CONFIG_BYTES
from components.sizing.endpoint_architecture import UnknownArchitectureError, endpoint_architecture
from tests.components.endpoint.items import endpoint_spec


def _fifo(tmp: Path) -> Path:
    os.mkfifo(tmp / "config.json")
    return tmp / "config.json"


def _huge(tmp: Path) -> Path:
    (tmp / "config.json").write_text(" " * (MAX_CONFIG_BYTES + 1))
    return tmp / "config.json"


REFUSED = {
    "configFile naming /dev/zero, which never ends": (
        lambda _: Path("/dev/zero"),
        "/dev/zero: is a character device, not a file",
    ),
    "configFile naming a FIFO, which blocks a read": (
        _fifo,
        "{tmp}/config.json: is a named pipe (FIFO), not a file",
    ),
    "configFile naming a directory": (lambda tmp: tmp, "{tmp}: is a directory, not a file"),
    "configFile naming a file past its size cap": (
        _huge,
        "{tmp}/config.json: is larger than 4 MiB, more than such a file holds",
    ),
}


@pytest.mark.parametrize("case", REFUSED)
def test_what_crashed_or_hung_is_one_line(tmp_path, case):
    make, message = REFUSED[case]
    architecture = {"configFile": str(make(tmp_path)), "parameters": 70.6e9}
    with pytest.raises(UnknownArchitectureError) as refused:
        endpoint_architecture(endpoint_spec({"architecture": architecture}))
    finding = refused.value.finding
    assert (finding.level, finding.field) == ("error", "architecture.configFile")
    assert finding.message == message.format(tmp=tmp_path)
