"""--out: a render replaces only what an earlier render wrote, and a refused or failed render
leaves nothing behind."""

import json
import os
import signal
import sys
from pathlib import Path

import pytest

from infra.paths import ROOT
from tools.cli import main, run
from tools.render import render_output
from tools.render.render_output import MARKER


def _render(out: Path) -> int:
    return main(["render", "--out", str(out)])


def _fake_render(folder: Path) -> None:
    """A folder that looks like a render (resources.json) but holds the user's files."""
    folder.mkdir()
    (folder / "resources.json").write_text("[]")
    (folder / "precious.txt").write_text("keep me")


def _a_file(tmp: Path) -> Path:
    (tmp / "notes.txt").write_text("keep me")
    return tmp / "notes.txt"


# What --out names -> the one line refusing it.
REFUSED = {
    "an existing file": (
        _a_file,
        lambda tmp: (
            f"--out: {tmp}/notes.txt exists and is not a directory; name a directory "
            "(new, empty, or a render's)"
        ),
    ),
    "a folder under an existing file": (
        lambda tmp: _a_file(tmp) / "render",
        lambda tmp: (
            f"--out: {tmp}/notes.txt is a file, so {tmp}/notes.txt/render cannot be made inside it"
        ),
    ),
    "a folder of the user's that holds a resources.json": (
        lambda tmp: (_fake_render(tmp / "mine"), tmp / "mine")[1],
        lambda tmp: (
            f"--out: {tmp}/mine holds files that no render wrote (it has no {MARKER} "
            "listing them); a render replaces only its own output, so name a new or empty "
            "directory, or an earlier render's (delete it yourself if it is a render from before "
            "that list)"
        ),
    ),
    "a folder inside a loop of symbolic links": (
        lambda tmp: (
            (tmp / "a").symlink_to(tmp / "b"),
            (tmp / "b").symlink_to(tmp / "a"),
            tmp / "a" / "render",
        )[2],
        lambda tmp: f"--out: {tmp}/a/render: is inside a loop of symbolic links",
    ),
    "a name longer than the filesystem takes": (
        lambda tmp: tmp / ("a" * 300),
        lambda tmp: f"--out: {tmp}/{'a' * 300} cannot be used: File name too long",
    ),
}


@pytest.mark.parametrize("case", REFUSED)
def test_an_out_that_cannot_take_a_render_exits_2_and_is_left_alone(tmp_path, capsys, case):
    make, says = REFUSED[case]
    out = make(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    assert _render(out) == 2
    assert capsys.readouterr().err == says(tmp_path) + "\n"
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_the_project_root_is_never_a_render_target():
    assert _render(ROOT) == 2
    assert (ROOT / "Pulumi.yaml").is_file()


def test_a_render_replaces_its_own_files_and_keeps_what_the_user_added(tmp_path):
    out = tmp_path / "render"
    assert _render(out) == 0
    (out / "manifests" / "stale.yaml").write_text("from an endpoint since removed")
    listed = json.loads((out / MARKER).read_text())
    (out / MARKER).write_text(json.dumps({"files": [*listed["files"], "manifests/stale.yaml"]}))
    (out / "notes.md").write_text("keep me")
    assert _render(out) == 0
    assert (out / "notes.md").read_text() == "keep me"
    assert not (out / "manifests" / "stale.yaml").exists()
    assert (out / "resources.json").is_file()


# What the tests below write as a render, through the writer a render writes with: the files a
# render writes do not change how they are replaced.
RENDERED = {"resources.json": "[]\n", "manifests/default.service.a.yaml": "kind: Service\n"}


def _write(out: Path, files: dict[str, str] = RENDERED) -> None:
    """What `render` does with its files once it has them."""
    assert render_output.out_problem(out) is None
    render_output.replace_render(out, files)


def test_a_marker_naming_files_outside_the_render_deletes_none_of_them(tmp_path):
    out = tmp_path / "render"
    _write(out)
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    (out / MARKER).write_text(json.dumps({"files": ["../outside.txt", str(outside)]}))
    _write(out)
    assert outside.read_text() == "keep me"


def test_a_symlinked_out_renders_into_the_folder_it_points_to(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    _write(tmp_path / "link")
    _write(tmp_path / "link")
    assert (tmp_path / "link").is_symlink()
    assert (tmp_path / "real" / "resources.json").is_file()


def test_a_render_that_fails_to_write_leaves_no_partial_output(tmp_path, capsys, monkeypatch):
    written = Path.write_text

    def disk_full_at_sizing(path: Path, text: str, *args, **kwargs) -> int:
        if path.name == "sizing.json":
            raise OSError(28, "No space left on device")
        return written(path, text, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", disk_full_at_sizing)
    out = tmp_path / "build" / "dev"
    assert _render(out) == 2
    assert capsys.readouterr().err == f"--out: cannot write {out}: No space left on device\n"
    assert list(tmp_path.iterdir()) == []


def test_an_out_through_a_folder_still_to_be_made_is_judged_where_it_lands(tmp_path, capsys):
    # `new/..` is tmp_path itself once resolved, which holds a user's file and no marker.
    (tmp_path / "plan.md").write_text("the user's plan")
    assert _render(tmp_path / "not-yet" / "..") == 2
    assert f"--out: {tmp_path} holds files that no render wrote" in capsys.readouterr().err
    assert (tmp_path / "plan.md").read_text() == "the user's plan"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.md"]


@pytest.mark.parametrize("name", [".", ".."])
def test_a_stack_name_of_dots_is_refused_before_it_names_a_folder(name, capsys):
    with pytest.raises(SystemExit) as stopped:
        main(["render", "--stack", name])
    assert stopped.value.code == 2
    assert f"{name!r} is not a stack name; it needs a letter or digit" in capsys.readouterr().err


def test_the_scratch_folder_is_made_beside_out_and_never_inside_it(tmp_path, monkeypatch):
    out = tmp_path / "render"
    _write(out)
    made = []
    real_mkdtemp = render_output.tempfile.mkdtemp

    def recorded(**kwargs):
        made.append(Path(kwargs["dir"]))
        return real_mkdtemp(**kwargs)

    monkeypatch.setattr(render_output.tempfile, "mkdtemp", recorded)
    _write(out)
    assert made == [tmp_path]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["render"]


def _files(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): p.read_text() for p in folder.rglob("*") if p.is_file()
    }


def test_a_stop_while_files_move_waits_until_the_new_render_is_whole(tmp_path, monkeypatch):
    out = tmp_path / "render"
    _write(out, {**RENDERED, "sizing.json": "{}\n"})
    before = _files(out)
    moved = []
    real_replace = render_output.os.replace

    def interrupted_midway(source, destination):
        real_replace(source, destination)
        moved.append(destination)
        if len(moved) == 2:
            # What Ctrl-C does: the signal arrives while the render's files are moving.
            signal.raise_signal(signal.SIGINT)

    monkeypatch.setattr(render_output.os, "replace", interrupted_midway)
    with pytest.raises(KeyboardInterrupt):
        render_output.replace_render(out, {**{k: "new" for k in before if k != MARKER}})
    after = _files(out)
    assert {k: v for k, v in after.items() if k != MARKER} == {
        k: "new" for k in before if k != MARKER
    }
    assert sorted(json.loads(after[MARKER])["files"]) == sorted(k for k in before if k != MARKER)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["render"]


def test_sigterm_during_a_render_leaves_no_scratch_folder(tmp_path, monkeypatch):
    written = Path.write_text

    def terminated_at_sizing(path: Path, text: str, *args, **kwargs) -> int:
        if path.name == "sizing.json":
            os.kill(os.getpid(), signal.SIGTERM)
        return written(path, text, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", terminated_at_sizing)
    monkeypatch.setattr(sys, "argv", ["infra", "render", "--out", str(tmp_path / "render")])

    def not_taken_over(*_: object) -> None:
        raise AssertionError("run() left SIGTERM to the handler it found")

    # `run` takes SIGTERM over, as `hyperpod-dpd` does; this process's own handler comes
    # back after.
    previous = signal.signal(signal.SIGTERM, not_taken_over)
    try:
        with pytest.raises(SystemExit) as stopped:
            run()
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert stopped.value.code == 128 + signal.SIGTERM
    assert list(tmp_path.iterdir()) == []
