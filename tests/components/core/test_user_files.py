"""A file a user names is read only when it is a file of a sane size (/dev/zero, a FIFO or a
directory would hang or fill memory), and written whole, through its link, in its mode and
encoding, never over the user's own file."""

import codecs
import os
import stat
import threading
import time
from pathlib import Path

import pytest

from components.core.user_files import (
    UnreadableFileError,
    UnwritableFileError,
    decode_text,
    locked,
    read_bytes,
    replace_file,
    resolved,
    text_encoding,
    writable_problem,
)
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


# Writing a file the user names: whole or not at all, through a link, keeping its mode and
# encoding, never over the user's own file or a read-only one.


def test_a_replaced_file_keeps_its_link_its_mode_and_its_encoding(tmp_path):
    real = tmp_path / "real.yaml"
    real.write_bytes(codecs.BOM_UTF16_BE + "config: {}\n".encode("utf-16-be"))
    real.chmod(0o640)
    link = tmp_path / "Pulumi.dev.yaml"
    link.symlink_to(real)
    data = read_bytes(link, 1024)
    replace_file(link, decode_text(data) + "# more\n", *text_encoding(data))
    assert link.is_symlink() and stat.S_IMODE(real.stat().st_mode) == 0o640
    assert real.read_bytes() == codecs.BOM_UTF16_BE + "config: {}\n# more\n".encode("utf-16-be")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["Pulumi.dev.yaml", "real.yaml"]


def _loop(tmp: Path) -> Path:
    (tmp / "a").symlink_to(tmp / "b")
    (tmp / "b").symlink_to(tmp / "a")
    return tmp / "a" / "out.yaml"


def _read_only(tmp: Path) -> Path:
    (tmp / "job.yaml").write_text(MARKER)
    (tmp / "job.yaml").chmod(0o444)
    return tmp / "job.yaml"


def _users(tmp: Path) -> Path:
    (tmp / "notes.md").write_text("my notes\n")
    return tmp / "notes.md"


def _in_read_only_folder(tmp: Path) -> Path:
    (tmp / "ro").mkdir()
    (tmp / "ro" / "job.yaml").write_text(MARKER)
    (tmp / "ro").chmod(0o555)
    return tmp / "ro" / "job.yaml"


MARKER = "# written by the tools\n"
NOT_WRITABLE = {
    "a directory": (lambda tmp: tmp, "is a directory, not a file"),
    "a device": (lambda _: Path("/dev/null"), "is a character device, not a file"),
    "a file of the user's": (_users, "exists, and the tools did not write it"),
    "a file made read-only": (_read_only, "is read-only (mode 0444)"),
    "a folder that is a file": (lambda tmp: _users(tmp) / "job.yaml", "notes.md is a file"),
    "a file in a folder made read-only": (_in_read_only_folder, "read-only"),
}


@pytest.mark.parametrize("case", NOT_WRITABLE)
def test_what_a_write_would_lose_is_refused(tmp_path, case):
    make, said = NOT_WRITABLE[case]
    assert said in writable_problem(make(tmp_path), MARKER)


def test_a_loop_of_links_is_refused_not_a_runtime_error(tmp_path):
    with pytest.raises(UnwritableFileError, match="loop of symbolic links"):
        resolved(_loop(tmp_path))


def test_what_the_tools_wrote_and_what_is_new_may_be_written(tmp_path):
    (tmp_path / "job.yaml").write_text(MARKER + "kind: Job\n")
    assert writable_problem(tmp_path / "job.yaml", MARKER) is None
    assert writable_problem(tmp_path / "new" / "job.yaml", MARKER) is None


def test_utf32_is_refused_by_name_not_read_as_utf16():
    for data in (codecs.BOM_UTF32_LE + "config: {}".encode("utf-32-le"), "x".encode("utf-32")):
        with pytest.raises(UnreadableFileError, match="is UTF-32 text"):
            decode_text(data)


def test_two_edits_at_once_wait_for_each_other(tmp_path):
    path = tmp_path / "Pulumi.dev.yaml"
    path.write_text("")

    def append(line: str) -> None:
        with locked(path):
            text = path.read_text()
            time.sleep(0.05)
            replace_file(path, text + line)

    threads = [threading.Thread(target=append, args=(f"{i}\n",)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(path.read_text().splitlines()) == ["0", "1", "2", "3"]
