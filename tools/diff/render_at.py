"""A stack rendered from the working tree, or as it was at a git revision.

Each side runs `python -m infra render` in its own checkout, so the base revision renders with
its own code and stack file, and the two never share state.
"""

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class RenderError(RuntimeError):
    """A side of the comparison could not be rendered."""


def render_checkout(
    checkout: Path, stack: str, config_file: Path, out: Path, account_id: str | None = None
) -> None:
    """A base older than `render --account` refuses the option, and says so."""
    command = [sys.executable, "-m", "infra", "render", "--stack", stack, "--out", str(out)]
    command += ["--config-file", str(config_file)]
    command += ["--account", account_id] if account_id else []
    done = subprocess.run(command, cwd=checkout, capture_output=True, text=True)
    if done.returncode != 0:
        said = done.stderr.strip() or done.stdout.strip()
        if "Traceback (most recent call last)" in said:
            # The base revision's own code may crash where today's refuses in one line.
            said = f"the render crashed: {said.splitlines()[-1]}"
        raise RenderError(said)


@contextmanager
def checkout_at(repository: Path, ref: str) -> Iterator[Path]:
    if ref.startswith("-"):
        # git would read it as an option.
        raise RenderError(f"--base {ref!r} is not a git revision")
    scratch = Path(tempfile.mkdtemp(prefix="hyperpod-dpd-base-"))
    checkout = scratch / "checkout"
    git = ["git", "-C", str(repository)]
    try:
        added = subprocess.run(
            [*git, "worktree", "add", "--detach", "--quiet", str(checkout), ref],
            capture_output=True,
            text=True,
        )
    except OSError as failed:
        shutil.rmtree(scratch)
        raise RenderError(f"--base needs git, which cannot run here ({failed})") from None
    if added.returncode != 0:
        shutil.rmtree(scratch)
        said = " ".join(added.stderr.split())
        raise RenderError(f"--base {ref!r}: git cannot check it out here ({said})")
    try:
        yield checkout
    finally:
        subprocess.run([*git, "worktree", "remove", "--force", str(checkout)], check=False)
        shutil.rmtree(scratch, ignore_errors=True)
