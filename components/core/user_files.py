"""Files a user names: read without hanging, filling memory or crashing on what is in them, and
written without losing anything of the user's.

Only regular files are read (a FIFO blocks, /dev/zero never ends), up to a size cap. Text is
UTF-8, with or without a byte order mark, or UTF-16 after its mark: what the Pulumi CLI's YAML
parser reads (go-yaml's `readerc.go`); anything else is refused with the place of its first NUL
or non-UTF-8 byte. A file is replaced whole, by a rename from beside it, through a symbolic
link, with the old file's permissions and encoding; a read-only file is refused, and so is one
without the tools' first line (`marker`), the user's own. Edits of one file wait for each other.
"""

import codecs
import contextlib
import fcntl
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path

_UTF32 = (codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)
# (byte order mark, codec); UTF-32's little-endian mark begins with UTF-16's.
_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


class UnreadableFileError(ValueError):
    """Why a file cannot be read; the message follows the file's path (`<path>: <message>`)."""


class MissingFileError(UnreadableFileError):
    """Nothing at the path."""


class UnwritableFileError(ValueError):
    """Why a file cannot be written; the message follows the file's path."""


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


def text_encoding(data: bytes) -> tuple[bytes, str]:
    """The byte order mark `data` starts with (or none) and the codec of what follows."""
    if data.startswith(_UTF32):
        raise UnreadableFileError(
            "is UTF-32 text, which the Pulumi CLI does not read (UTF-8 or UTF-16); save it as UTF-8"
        )
    return next(((bom, codec) for bom, codec in _BOMS if data.startswith(bom)), (b"", "utf-8"))


def decode_text(data: bytes) -> str:
    """`data` as text: UTF-8, or UTF-16 that starts with a byte order mark."""
    bom, codec = text_encoding(data)
    if bom:
        try:
            return data[len(bom) :].decode(codec)
        except UnicodeDecodeError:
            raise UnreadableFileError(
                f"starts with a {codec[:6].upper()} byte order mark but is not valid text in "
                "that encoding; save it as UTF-8"
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
    return decode_text(read_bytes(path, limit))


def resolved(path: Path) -> Path:
    """`path` with every symbolic link followed, as a write will use it."""
    try:
        return path.resolve()
    except RuntimeError:  # Python 3.11's word for a loop of links
        raise UnwritableFileError("is inside a loop of symbolic links") from None
    except OSError as failed:
        raise UnwritableFileError(f"cannot be used ({failed.strerror or failed})") from None


def writable_problem(path: Path, marker: str | None = None) -> str | None:
    """Why the file at `path` cannot be replaced: not a file, read-only, or (with a `marker`)
    the user's own, whose first line is not the marker."""
    try:
        target = resolved(path)
        if not target.exists():
            folder = next(p for p in target.parents if p.exists())
            if not folder.is_dir():
                return f"cannot be made: {folder} is a file"
            writable = os.access(folder, os.W_OK | os.X_OK) and folder.stat().st_mode & 0o222
            return None if writable else f"cannot be made: {folder} is read-only"
        mode = target.stat().st_mode
    except UnwritableFileError as unfit:
        return str(unfit)
    except OSError as failed:
        return f"cannot be used ({failed.strerror or failed})"
    if not stat.S_ISREG(mode):
        return f"is {_kind(mode)}, not a file"
    # The modes, not only access: root may write anything, but what is made read-only is kept
    # (a file, or the folder a rename replaces it in).
    folder = target.parent
    if not os.access(folder, os.W_OK) or not folder.stat().st_mode & 0o222:
        return f"cannot be replaced: {folder} is read-only"
    if not os.access(target, os.W_OK) or not mode & 0o222:
        return f"is read-only (mode {stat.S_IMODE(mode):04o}); make it writable first"
    if marker is not None:
        with contextlib.suppress(UnreadableFileError):
            if read_text(target, 2**20).startswith(marker):
                return None
        return "exists, and the tools did not write it; name a new file, or remove it first"
    return None


def replace_file(path: Path, text: str, bom: bytes = b"", codec: str = "utf-8") -> None:
    """Write `text` as the whole file at `path` (resolved), in its encoding; the old file stays
    until the new one is complete. OSError when the filesystem refuses."""
    target = resolved(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    handle, scratch = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(bom + text.encode(codec))
        if target.exists():
            mode = stat.S_IMODE(target.stat().st_mode)
        else:
            # What a new file gets: 0666 less the umask, which reading sets.
            mask = os.umask(0)
            os.umask(mask)
            mode = 0o666 & ~mask
        os.chmod(scratch, mode)
        os.replace(scratch, target)
    finally:
        Path(scratch).unlink(missing_ok=True)


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """Hold the edit lock of the file at `path` (resolved): one edit at a time, across
    processes. The lock is its folder's, which a rename into it leaves in place; an edit holds
    it for the milliseconds of a read and a write."""
    folder = os.open(resolved(path).parent, os.O_RDONLY)
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        yield
    finally:
        os.close(folder)
