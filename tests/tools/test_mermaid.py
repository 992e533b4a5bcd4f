"""Mermaid parses every diagram the tools write: the components graph and plan.md as the dev
render writes them, and the latency charts; and it refuses a broken chart, so the check can fail.

One run for all: Mermaid takes a second to start, and it parses each diagram on its own.
"""

import contextlib
import io
import subprocess

import pytest

from infra.paths import ROOT
from tests.tools.reports.test_latency_chart import CURVE
from tools.cli import main
from tools.reports.latency_chart import latency_markdown

MERMAID_CHECK = ["node", str(ROOT / "scripts" / "mermaid_check.mjs")]


@pytest.fixture(scope="module")
def problems(tmp_path_factory) -> dict[str, list[str]]:
    """What Mermaid says of each file, as `block: message` lines."""
    folder = tmp_path_factory.mktemp("mermaid")
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["render", "--stack", "dev", "--out", str(folder / "dev")]) == 0
    broken = (
        'xychart-beta\n    title "t"\n    x-axis "x" ["1"]\n    y-axis "y" 0 --> 10\n    line [1,\n'
    )
    files = {
        "graph.mmd": (folder / "dev" / "graph.mmd").read_text(),
        # plan.md, which the PR comment carries: the predictions table and the charts.
        "plan.md": (folder / "dev" / "plan.md").read_text(),
        "charts.md": "\n".join(latency_markdown(CURVE)),
        "broken.md": f"```mermaid\n{broken}```\n",
    }
    for name, text in files.items():
        (folder / name).write_text(text)
    done = subprocess.run(
        [*MERMAID_CHECK, *(str(folder / name) for name in files)], capture_output=True, text=True
    )
    assert done.returncode in (0, 1), done.stderr
    lines = done.stdout.splitlines()
    return {
        name: [
            line.removeprefix(f"{folder / name}:")
            for line in lines
            if line.startswith(f"{folder / name}:")
        ]
        for name in files
    }


@pytest.mark.parametrize("name", ["graph.mmd", "plan.md", "charts.md"])
def test_mermaid_parses_what_the_tools_write(problems, name):
    assert problems[name] == []


def test_mermaid_refuses_a_broken_chart_so_the_check_can_fail(problems):
    (problem,) = problems["broken.md"]
    assert problem.startswith("1: Parse error")
