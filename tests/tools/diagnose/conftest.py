"""The fake kubectl the diagnose tests run against."""

import os
import sys
from pathlib import Path

import pytest


@pytest.fixture
def kubectl(tmp_path, monkeypatch):
    """A fake kubectl first on PATH; returns the folder it serves."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "kubectl"
    source = (Path(__file__).with_name("fake_kubectl.py")).read_text()
    script.write_text(f"#!{sys.executable}\n{source}")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return bin_dir / "cluster"
