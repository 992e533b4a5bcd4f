"""The fake kubectl the diagnose tests run against: on PATH as a program of its own, for what
is about running kubectl (its errors, its absence), or answering in this process, which
costs no interpreter start for each of the dozen commands a diagnosis runs."""

import contextlib
import io
import os
import subprocess
import sys
from collections.abc import Sequence
from functools import partial
from pathlib import Path

import pytest

from tests.tools.diagnose import fake_kubectl
from tools.diagnose import diagnose_command
from tools.diagnose.bundle import ClusterReader


@pytest.fixture
def kubectl_on_path(tmp_path, monkeypatch):
    """A fake kubectl first on PATH; returns the folder it serves."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "kubectl"
    source = (Path(__file__).with_name("fake_kubectl.py")).read_text()
    script.write_text(f"#!{sys.executable}\n{source}")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return bin_dir / "cluster"


def _answered(argv: Sequence[str]) -> subprocess.CompletedProcess:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = fake_kubectl.answer(list(argv[1:]))
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


@pytest.fixture
def kubectl(tmp_path, monkeypatch):
    """The fake kubectl answering `diagnose` in this process; returns the folder it serves."""
    folder = tmp_path / "cluster"
    monkeypatch.setattr(fake_kubectl, "FOLDER", folder)
    monkeypatch.setattr(diagnose_command, "ClusterReader", partial(ClusterReader, _answered))
    return folder
