"""`make chart` without helm, without network, and when it works: one line, nothing half-done.

No network: the "remote" is a git repository in a temporary directory, or a path that does not
exist; helm is a script that does what `helm dependency update` leaves behind.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from components.cluster.dependencies_chart import CHART_DIRECTORY
from tests.support import HYPERPOD_DPD
from tools.fetch_chart import ChartError, fetch_chart

FAKE_HELM = '#!/bin/sh\n# helm dependency update <chart>\n/bin/mkdir -p "$3/charts"\n'


def tools(tmp_path: Path, *, helm: bool) -> Path:
    """A PATH directory holding the real git and, if asked, a helm that works offline."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "git").symlink_to(shutil.which("git"))
    if helm:
        (bin_dir / "helm").write_text(FAKE_HELM)
        (bin_dir / "helm").chmod(0o755)
    return bin_dir


def chart_repository(tmp_path: Path, version: str) -> tuple[str, str]:
    """A local repository holding a chart; its URL and the commit to fetch."""
    repository = tmp_path / f"remote-{version}"
    chart = repository / CHART_DIRECTORY
    chart.mkdir(parents=True)
    (chart / "Chart.yaml").write_text(f"name: hyperpod\nversion: {version}\n")

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "-C", str(repository), *args],
            check=True,
            capture_output=True,
            text=True,
            env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
                 "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"},
        ).stdout.strip()  # fmt: skip

    git("init", "--quiet")
    git("add", "--all")
    git("commit", "--quiet", "-m", version)
    return repository.as_uri(), git("rev-parse", "HEAD")


def leftovers(charts: Path) -> list[str]:
    return sorted(p.name for p in charts.iterdir()) if charts.exists() else []


def test_without_helm_it_says_so_and_touches_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tools(tmp_path, helm=False)))
    checkout = tmp_path / "charts" / "cli"
    with pytest.raises(ChartError, match=r"^helm not found on PATH; install it and run it again$"):
        fetch_chart(checkout, "file:///nowhere", "0" * 40)
    assert not checkout.parent.exists()


def test_without_network_it_fails_in_one_line_and_keeps_the_previous_chart(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tools(tmp_path, helm=True)))
    url, revision = chart_repository(tmp_path, "1.0.0")
    checkout = tmp_path / "charts" / "cli"
    fetch_chart(checkout, url, revision)
    unreachable = (tmp_path / "no-such-remote").as_uri()
    with pytest.raises(ChartError) as failed:
        fetch_chart(checkout, unreachable, revision)
    message = str(failed.value)
    assert message.startswith(f"fetching {revision[:12]} from {unreachable} (is the network up?)")
    assert "\n" not in message
    assert "version: 1.0.0" in (checkout / CHART_DIRECTORY / "Chart.yaml").read_text()
    assert leftovers(checkout.parent) == ["cli"]


def test_a_new_revision_replaces_the_checkout_whole(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tools(tmp_path, helm=True)))
    checkout = tmp_path / "charts" / "cli"
    fetch_chart(checkout, *chart_repository(tmp_path, "1.0.0"))
    chart = fetch_chart(checkout, *chart_repository(tmp_path, "2.0.0"))
    assert chart == checkout / CHART_DIRECTORY
    assert "version: 2.0.0" in (chart / "Chart.yaml").read_text()
    assert (chart / "charts").is_dir()
    assert leftovers(checkout.parent) == ["cli"]


def test_the_command_line_reports_one_line_without_a_traceback(tmp_path):
    done = subprocess.run(
        [HYPERPOD_DPD, "chart"],
        cwd=tmp_path,
        env={**os.environ, "PATH": str(tools(tmp_path, helm=False))},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr == "make chart: helm not found on PATH; install it and run it again\n"
    assert not (tmp_path / "build").exists()
