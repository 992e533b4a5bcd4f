"""Predicted latency against request rate, as Mermaid charts that Mermaid itself accepts."""

import math
import subprocess
from dataclasses import replace

import pytest

from infra.paths import ROOT
from tools.reports.latency_chart import LatencyCurve, latency_markdown, xychart

MERMAID_CHECK = ["node", str(ROOT / "scripts" / "mermaid_check.mjs")]

CURVE = LatencyCurve(
    endpoint="dpd-test",
    requests_per_second=[0.5, 1.0, 2.0, 3.0, 4.0],
    ttft_ms=[400.0, 600.0, 1200.0, 2500.0, math.inf],
    tpot_ms=[20.0, 25.0, 30.0, 40.0, 60.0],
    slo_ttft_ms=2000.0,
    slo_tpot_ms=50.0,
    load=2.0,
)


@pytest.fixture(scope="module")
def mermaid_problems(tmp_path_factory) -> dict[str, list[str]]:
    """What Mermaid says of the charts and of a broken chart, in one run (it takes a second to
    start; it parses each diagram on its own)."""
    folder = tmp_path_factory.mktemp("charts")
    broken = xychart("t", "x", ['"1"'], "y", 10, [[1.0]]).replace("line [1]", "line [1,")
    files = {
        "charts.md": "\n".join(latency_markdown(CURVE)),
        "broken.md": f"```mermaid\n{broken}```\n",
    }
    for name, markdown in files.items():
        (folder / name).write_text(markdown)
    done = subprocess.run(
        [*MERMAID_CHECK, *(str(folder / name) for name in files)], capture_output=True, text=True
    )
    assert done.returncode in (0, 1), done.stderr
    lines = done.stdout.splitlines()
    # Each line is `file:block: message`; by file, the `block: message` part.
    return {
        name: [
            line.removeprefix(f"{folder / name}:")
            for line in lines
            if line.startswith(f"{folder / name}:")
        ]
        for name in files
    }


def test_ttft_and_tpot_each_get_a_chart_with_the_slo_as_a_flat_line():
    text = "\n".join(latency_markdown(CURVE))
    assert text.count("```mermaid\nxychart-beta\n") == 2
    assert '    x-axis "requests per second" ["0.5", "1", "2 (load)", "3", "4"]' in text
    assert "    line [2000, 2000, 2000, 2000, 2000]" in text
    assert "    line [50, 50, 50, 50, 50]" in text
    assert "_dpd-test: predicted TPOT against request rate; the flat line is the SLO, 50 ms_" in (
        text
    )


def test_points_beyond_the_axis_are_drawn_at_its_top_and_the_sentence_says_so():
    ttft = "\n".join(latency_markdown(CURVE)[:7])
    # The axis reaches a little past the highest finite point; the overloaded one sits on top.
    assert '    y-axis "TTFT (ms)" 0 --> 3000' in ttft
    assert "    line [400, 600, 1200, 2500, 3000]" in ttft
    assert "points above 3000 ms (and past the layout's capacity, where it has no bound)" in ttft


def test_without_an_slo_there_is_one_line():
    text = "\n".join(latency_markdown(replace(CURVE, slo_tpot_ms=None)))
    tpot = text.split("TPOT", 1)[1]
    assert tpot.count("    line [") == 1
    assert "the flat line" not in tpot


def test_mermaid_parses_the_charts(mermaid_problems):
    assert mermaid_problems["charts.md"] == []


def test_mermaid_refuses_a_broken_chart_so_the_check_can_fail(mermaid_problems):
    (problem,) = mermaid_problems["broken.md"]
    assert problem.startswith("1: Parse error")


@pytest.mark.parametrize("values", [[0.0, 0.0], [1e-3, 2e-3]])
def test_tiny_or_zero_predictions_still_give_an_axis(values):
    curve = LatencyCurve("e", [1.0, 2.0], values, values, None, None, 1.0)
    assert "0 --> 0\n" not in "\n".join(latency_markdown(curve))
