"""Predicted latency against request rate, as Mermaid charts (tests/tools/test_mermaid.py has
Mermaid parse them)."""

import math
from dataclasses import replace

import pytest

from tools.reports.latency_chart import LatencyCurve, latency_markdown

CURVE = LatencyCurve(
    endpoint="dpd-test",
    requests_per_second=[0.5, 1.0, 2.0, 3.0, 4.0],
    ttft_ms=[400.0, 600.0, 1200.0, 2500.0, math.inf],
    tpot_ms=[20.0, 25.0, 30.0, 40.0, 60.0],
    slo_ttft_ms=2000.0,
    slo_tpot_ms=50.0,
    load=2.0,
)


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
    ttft = "\n".join(latency_markdown(CURVE)[:10])
    # The axis reaches a little past the highest finite point; the overloaded one sits on top.
    assert '    y-axis "TTFT (ms)" 0 --> 3000' in ttft
    assert "    line [400, 600, 1200, 2500, 3000]" in ttft
    assert "points above 3000 ms (and past the layout's capacity, where it has no bound)" in ttft


def test_without_an_slo_there_is_one_line():
    text = "\n".join(latency_markdown(replace(CURVE, slo_tpot_ms=None)))
    tpot = text.split("TPOT", 1)[1]
    assert tpot.count("    line [") == 1
    assert "the flat line" not in tpot


@pytest.mark.parametrize("values", [[0.0, 0.0], [1e-3, 2e-3]])
def test_tiny_or_zero_predictions_still_give_an_axis(values):
    curve = LatencyCurve("e", [1.0, 2.0], values, values, None, None, 1.0)
    assert "0 --> 0\n" not in "\n".join(latency_markdown(curve))
