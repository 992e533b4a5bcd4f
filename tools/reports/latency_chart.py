"""Predicted latency against request rate, as Mermaid `xychart-beta` charts GitHub draws.

Mermaid's XY chart (mermaid.js.org/syntax/xyChart) takes a categorical `x-axis [..]`, a
`y-axis "title" min --> max` and any number of `line [..]` series over the same x-axis. It
draws no legend, so each chart holds one quantity, the prediction and its SLO as a flat line,
and the sentence above the chart says which line is which. TTFT and TPOT differ by two orders
of magnitude, so each gets its own chart.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

# Predictions far above the SLO would flatten everything else: the y-axis stops at this many
# times the SLO, and points above it are drawn at the top.
CLIP_FACTOR = 3.0


@dataclass(frozen=True)
class LatencyCurve:
    endpoint: str
    requests_per_second: Sequence[float]
    ttft_ms: Sequence[float]
    tpot_ms: Sequence[float]
    slo_ttft_ms: float | None
    slo_tpot_ms: float | None
    # The configured load, marked on the x-axis.
    load: float


def _number(value: float) -> str:
    return f"{value:.4g}" if math.isfinite(value) else "0"


def _axis_top(values: Sequence[float], slo: float | None) -> float:
    finite = [v for v in values if math.isfinite(v)]
    top = max([*finite, slo or 0.0])
    if slo is not None:
        top = min(top, CLIP_FACTOR * slo)
    if top <= 0:
        return 1.0
    # A little room above the highest line, in round figures.
    step = 10 ** math.floor(math.log10(top))
    return math.ceil(top * 1.1 / step) * step


def _one(curve: LatencyCurve, what: str, values: Sequence[float], slo: float | None) -> list[str]:
    top = _axis_top(values, slo)
    lines = [values] if slo is None else [values, [slo] * len(values)]
    notes = [f"_{curve.endpoint}: predicted {what} against request rate"]
    if slo is not None:
        notes.append(f"the flat line is the SLO, {_number(slo)} ms")
    if any(v > top for v in values):
        past = " (and past the layout's capacity, where it has no bound)"
        notes.append(
            f"points above {_number(top)} ms"
            + (past if any(math.isinf(v) for v in values) else "")
            + " are drawn at the top"
        )
    described = "; ".join(notes) + "_"
    labels = [
        f'"{r:.3g} (load)"' if math.isclose(r, curve.load) else f'"{r:.3g}"'
        for r in curve.requests_per_second
    ]
    clipped = [[min(v, top) if math.isfinite(v) else top for v in line] for line in lines]
    chart = [
        "xychart-beta",
        f'    title "{curve.endpoint} {what}"',
        f'    x-axis "requests per second" [{", ".join(labels)}]',
        f'    y-axis "{what} (ms)" 0 --> {_number(top)}',
        *(f"    line [{', '.join(_number(v) for v in line)}]" for line in clipped),
    ]
    return [described, "", "```mermaid", *chart, "```"]


def latency_markdown(curve: LatencyCurve) -> list[str]:
    return [
        *_one(curve, "TTFT", curve.ttft_ms, curve.slo_ttft_ms),
        "",
        *_one(curve, "TPOT", curve.tpot_ms, curve.slo_tpot_ms),
    ]
