"""Reading a file a user names (a stack file, a model's config.json) without hanging, filling
memory or crashing on what is in it.

Only regular files are opened: a FIFO would block the read forever and `/dev/zero` never ends.
Reads stop past a size cap, so a weights file named by mistake is not read whole. Text is UTF-8,
with or without a byte order mark, or UTF-16 after its byte order mark: what the YAML parser
behind the Pulumi CLI reads (go-yaml v3 `readerc.go`; no UTF-32). Anything else is refused with
the place of its first NUL byte or of the first byte that is not UTF-8, which PyYAML's reader
would report less plainly.
"""

from __future__ import annotations

import codecs
import stat
from pathlib import Path

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)


class UnreadableFileError(ValueError):
    """Why a file cannot be read; the message follows the file's path (`<path>: <message>`)."""


class MissingFileError(UnreadableFileError):
    """Nothing at the path."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _size(limit: int) -> str:
    return f"{limit // 2**20} MiB" if limit >= 2**20 else f"{limit // 2**10} KiB"


def read_bytes(path: Path, limit: int) -> bytes:
    """The bytes of the regular file at `path` (symbolic links followed), at most `limit`."""
    try:
        mode = path.stat().st_mode
        if not stat.S_ISREG(mode):
            raise UnreadableFileError(f"is {_kind(mode)}, not a file")
        with path.open("rb") as file:
            data = file.read(limit + 1)
    except FileNotFoundError:
        raise MissingFileError("no such file") from None
    except PermissionError:
        raise UnreadableFileError("cannot be read (permission denied)") from None
    except OSError as failed:
        raise UnreadableFileError(f"cannot be read ({failed.strerror or failed})") from None
    if len(data) > limit:
        raise UnreadableFileError(f"is larger than {_size(limit)}, more than such a file holds")
    return data


def _position(data: bytes, offset: int) -> str:
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return f"line {line}, column {column}"


def decode_text(data: bytes) -> str:
    """`data` as text: UTF-8, or UTF-16 that starts with a byte order mark."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(encoding)
            except UnicodeDecodeError:
                raise UnreadableFileError(
                    f"starts with a {encoding.upper().removesuffix('-SIG')} byte order mark but "
                    "is not valid text in that encoding; save it as UTF-8"
                ) from None
    if b"\0" in data:
        where = _position(data, data.index(0))
        raise UnreadableFileError(f"is a binary file, not text (a NUL byte at {where})")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as bad:
        byte = data[bad.start]
        raise UnreadableFileError(
            f"is not UTF-8 text (byte 0x{byte:02x} at {_position(data, bad.start)}; a Latin-1 "
            "or Windows-1252 save?); save it as UTF-8"
        ) from None


def read_text(path: Path, limit: int) -> str:
    """The text of the regular file at `path`; UnreadableFileError says why not."""
    return decode_text(read_bytes(path, limit))
