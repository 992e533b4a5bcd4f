"""The directory a render writes into: it replaces only what an earlier render wrote.

Each render leaves a marker file listing the files it wrote. A later render into the same
directory removes exactly those, and nothing else: a directory holding anything without such
a marker is refused. The new files are written into a scratch directory beside it (never inside
it) and renamed into place once all are written; only then is what is old removed. So a render
that fails leaves no partial output, and one stopped by Ctrl-C or SIGTERM leaves the earlier
render or the new one, each whole: the signals wait while the files move.
"""

import json
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from components.core.user_files import UnwritableFileError, resolved

MARKER = ".hyperpod-dpd-render"


def _nearest_existing(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _inside(folder: Path, relative: str) -> Path | None:
    """`folder / relative` if `relative` names a regular file inside `folder`."""
    parts = PurePosixPath(relative).parts
    if not parts or PurePosixPath(relative).is_absolute() or ".." in parts:
        return None
    path = folder.joinpath(*parts)
    return path if path.is_file() and not path.is_symlink() else None


def earlier_render(folder: Path) -> list[Path] | None:
    """The files an earlier render wrote into `folder`, or None when its marker is missing or
    not one this program wrote."""
    marker = folder / MARKER
    if not marker.is_file() or marker.is_symlink():
        return None
    try:
        listed = json.loads(marker.read_text(encoding="utf-8"))["files"]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError):
        return None
    if not isinstance(listed, list) or not all(isinstance(f, str) for f in listed):
        return None
    return [path for f in listed if (path := _inside(folder, f)) is not None]


def out_problem(out: Path) -> str | None:
    """Why a render cannot be written to `out`, if it cannot. The path is judged as the writer
    will use it, resolved: `new/..` is the folder it names, not a folder still to be made."""
    try:
        return _out_problem(resolved(out))
    except UnwritableFileError as unfit:
        return f"--out: {out}: {unfit}"
    except OSError as failed:
        # A name too long for the filesystem.
        return f"--out: {out} cannot be used: {failed.strerror or failed}"


def _out_problem(out: Path) -> str | None:
    existing = _nearest_existing(out)
    if existing != out and not existing.is_dir():
        return f"--out: {existing} is a file, so {out} cannot be made inside it"
    if existing == out and not out.is_dir():
        return (
            f"--out: {out} exists and is not a directory; name a directory (new, empty, or a "
            "render's)"
        )
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"--out: {existing} is not writable"
    if existing == out and any(out.iterdir()) and earlier_render(out) is None:
        return (
            f"--out: {out} holds files that no render wrote (it has no {MARKER} listing them); "
            "a render replaces only its own output, so name a new or empty directory, or an "
            "earlier render's (delete it yourself if it is a render from before that list)"
        )
    return None


def _write_marker(folder: Path, files: list[str], scratch: Path) -> None:
    staged = scratch / f"{MARKER}.next"
    staged.write_text(json.dumps({"files": sorted(files)}, indent=2) + "\n")
    os.replace(staged, folder / MARKER)


@contextmanager
def _signals_held() -> Iterator[None]:
    """Ctrl-C and SIGTERM wait until the block ends, so the files it moves move together."""
    held = {signal.SIGINT, signal.SIGTERM}
    signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, held)


def _move_in(scratch: Path, target: Path, files: list[str]) -> None:
    """Rename each new file over its old self, then drop what only the old render had. The
    marker lists both sets until the old ones are gone, so no file is ever left unlisted."""
    earlier = [path.relative_to(target).as_posix() for path in earlier_render(target) or []]
    old = [relative for relative in earlier if relative not in files]
    _write_marker(target, [*files, *old], scratch)
    for relative in files:
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        os.replace(scratch / relative, destination)
    for relative in old:
        path = _inside(target, relative)
        if path is None:
            continue
        path.unlink()
        # Folders the render made (manifests/) go once empty; a user's file keeps them.
        for parent in path.parents:
            if parent == target or any(parent.iterdir()):
                break
            parent.rmdir()
    _write_marker(target, files, scratch)


def replace_render(out: Path, files: dict[str, str]) -> None:
    """Write `files` (relative path -> text) as the render in `out`, in place of an earlier
    one. Call out_problem first. OSError if the filesystem refuses."""
    target = out.resolve()
    scratch_parent = _nearest_existing(target.parent)
    scratch = Path(tempfile.mkdtemp(prefix=".hyperpod-dpd-render-", dir=scratch_parent))
    try:
        for relative, text in files.items():
            path = scratch / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        with _signals_held():
            if target.exists():
                _move_in(scratch, target, list(files))
            else:
                _write_marker(scratch, list(files), scratch)
                target.parent.mkdir(parents=True, exist_ok=True)
                scratch.rename(target)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
