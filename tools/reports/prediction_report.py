"""The performance model's predictions as people and programs read them: the render summary,
`size`, `plan --stack`, sizing.json and the PR comment."""

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from components.pricing.cost import usd
from components.pricing.prices import at_least
from infra.endpoint_predictions import EndpointPrediction, at_rate, figures, layout, ms, slo_text
from planner.measured import Calibration, corrected
from planner.predict import Prediction, predict
from tools.reports.latency_chart import LatencyCurve, latency_markdown

# As multiples of the workload's rate.
SWEEP = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0)


def prediction_document(ep: EndpointPrediction | None) -> dict[str, Any] | None:
    """sizing.json's `prediction`: at the workload's load, at the maxima, the SLO and its fix."""
    if ep is None:
        return None
    suggestion = ep.suggestion
    per_million = ep.cost_per_million_output_tokens
    return {
        **ep.configured.to_json(),
        "atMaxima": ep.at_maxima.to_json() if ep.at_maxima else None,
        "slo": None if ep.slo is None else ep.slo.model_dump(by_alias=True),
        "meetsSlo": ep.meets_slo,
        "shareOfCapacity": round(ep.capacity_share, 3),
        "costPerHour": None if ep.hourly is None else round(ep.hourly, 2),
        # ec2-on-demand: the costs are lower bounds, HyperPod's own rates being higher.
        "priceBasis": None if ep.price is None else ep.price.basis,
        "costPerMillionOutputTokens": None if per_million is None else round(per_million, 4),
        "suggestion": None
        if suggestion is None
        else {
            "settings": suggestion.settings | suggestion.cluster,
            **suggestion.prediction.to_json(),
        },
        "calibration": _calibration_document(ep.calibration),
    }


def _calibration_document(calibration: Calibration | None) -> dict[str, Any] | None:
    if calibration is None:
        return None
    factors = {"ttftFactor": calibration.ttft_factor, "tpotFactor": calibration.tpot_factor}
    rounded = {key: None if value is None else round(value, 3) for key, value in factors.items()}
    return {"runs": calibration.runs, "latest": calibration.latest, **rounded}


def calibration_line(ep: EndpointPrediction) -> str | None:
    """`calibrated on 2 runs, 2026-12-05: TTFT x1.31, TPOT x0.92 of the model's figures`."""
    if ep.calibration is None:
        return None
    return f"{ep.calibration.label()}: {ep.calibration.factors_text()}"


def _figures(prediction: Prediction, percentile: int) -> str:
    """The SLO's percentiles first, then the means and the throughput."""
    means = "" if not math.isfinite(prediction.ttft_ms) else f"mean TTFT {ms(prediction.ttft_ms)}, "
    return (
        f"{figures(prediction, percentile)}; {means}mean TPOT {ms(prediction.tpot_ms)}, "
        f"{prediction.output_tokens_per_second:,.0f} output tokens/s"
    )


def _verdict(ep: EndpointPrediction) -> str:
    if ep.slo is None:
        return "no SLO set (workload.slo)"
    return f"{'meets' if ep.meets_slo else 'misses'} the SLO ({slo_text(ep.slo)})"


def _lower_bound(ep: EndpointPrediction) -> bool:
    return ep.price is not None and ep.price.lower_bound


def _cost(ep: EndpointPrediction) -> str:
    per_million = ep.cost_per_million_output_tokens
    if ep.hourly is None or per_million is None:
        return "cost unknown: no price in the table"
    bound = at_least(_lower_bound(ep))
    rates = " (EC2's rates; HyperPod's are higher)" if _lower_bound(ep) else ""
    return (
        f"{bound}{usd(ep.hourly)}/h for its GPUs, {bound}{usd(per_million)} per million "
        f"output tokens{rates}"
    )


def prediction_lines(name: str, ep: EndpointPrediction | None) -> list[str]:
    if ep is None:
        return [f"{name}: no prediction (workload.outputTokens is not set)"]
    p = ep.slo.percentile if ep.slo else 90
    lines = [
        f"{name}: at {ep.load:.3g} requests per second, {ep.capacity_share:.0%} of the "
        f"{ep.judged.max_requests_per_second:.3g} the layout serves at most",
        f"  as configured       {layout(ep.configured)}: {_figures(ep.configured, p)}",
    ]
    if ep.at_maxima is not None:
        lines.append(f"  autoscaling maxima  {layout(ep.at_maxima)}: {_figures(ep.at_maxima, p)}")
    lines.append(f"  {_verdict(ep)}; {_cost(ep)}")
    if calibrated := calibration_line(ep):
        lines.append(f"  {calibrated}")
    if ep.suggestion is not None:
        found = ep.suggestion.prediction
        lines.append(f"  would meet it with  {ep.suggestion.text()}: {_figures(found, p)}")
    return lines


def prediction_brief(name: str, ep: EndpointPrediction | None) -> list[str]:
    """The render summary's: the SLO verdict, the judged layout's figures, load and cost."""
    if ep is None:
        return [f"{name}: no prediction (workload.outputTokens is not set)"]
    p = ep.slo.percentile if ep.slo else 90
    lines = [
        f"{name}: {_verdict(ep)}",
        f"  {layout(ep.judged)}: {figures(ep.judged, p)}; at {ep.load:.3g} requests per second, "
        f"{ep.capacity_share:.0%} of its capacity",
        f"  {_cost(ep)}",
    ]
    return lines + ([f"  would meet it with {ep.suggestion.text()}"] if ep.suggestion else [])


def _cell(value: float | None) -> str:
    if value is None or not math.isfinite(value):
        return "-"
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def _money(value: float | None, lower_bound: bool) -> str:
    if value is None:
        return "-"
    return (">= " if lower_bound else "") + usd(value)


EC2_FOOTNOTE = (
    "Costs marked >= are at EC2's on-demand rates for the same hardware: HyperPod's own rates "
    "are higher, so they are lower bounds (docs/planning.md, What the nodes cost)."
)

HEADER = (
    "Endpoint", "Requests/s (share of capacity)", "Layout", "TTFT ms (SLO's percentile)",
    "ITL ms (SLO's percentile)", "Mean TPOT ms", "Output tokens/s", "SLO", "$/h", "$ per M tokens",
)  # fmt: skip


def _row(cells: Sequence[str], widths: Sequence[int]) -> str:
    return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"


def prediction_table(names: Sequence[str], eps: Sequence[EndpointPrediction | None]) -> list[str]:
    """One row per endpoint with a prediction: markdown, its columns padded for a terminal."""
    rows = []
    for name, ep in zip(names, eps, strict=True):
        if ep is None:
            continue
        judged = ep.judged
        slo, p = "-", ep.slo.percentile if ep.slo else 90
        if ep.slo is not None:
            slo = ("meets " if ep.meets_slo else "misses ") + slo_text(ep.slo)
        ttft = judged.ttft_at(p)
        rows.append(
            (
                name,
                f"{ep.load:.3g} ({ep.capacity_share:.0%})",
                layout(judged),
                f"p{p} " + ("saturated" if not math.isfinite(ttft) else _cell(ttft)),
                f"p{p} {_cell(judged.itl_at(p))}",
                _cell(judged.tpot_ms),
                _cell(judged.output_tokens_per_second),
                slo,
                _money(ep.hourly, _lower_bound(ep)),
                _money(ep.cost_per_million_output_tokens, _lower_bound(ep)),
            )
        )
    if not rows:
        return []
    widths = [max(len(cells[i]) for cells in [HEADER, *rows]) for i in range(len(HEADER))]
    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return [_row(HEADER, widths), rule, *(_row(cells, widths) for cells in rows)]


def latency_curve(name: str, ep: EndpointPrediction) -> LatencyCurve:
    rates = [ep.load * factor for factor in SWEEP]
    scenarios = [at_rate(ep.judged_scenario, rate) for rate in rates]
    points = [corrected(predict(s, percentiles=False), s, ep.calibration) for s in scenarios]
    return LatencyCurve(
        endpoint=name,
        requests_per_second=rates,
        # Past its capacity the prefill queue grows without bound: TTFT has no figure.
        ttft_ms=[p.ttft_ms for p in points],
        tpot_ms=[p.tpot_ms for p in points],
        slo_ttft_ms=ep.slo.ttft_ms if ep.slo else None,
        slo_tpot_ms=ep.slo.tpot_ms if ep.slo else None,
        load=ep.load,
    )


def predictions_markdown(
    names: Sequence[str], eps: Sequence[EndpointPrediction | None]
) -> list[str]:
    """The PR comment's and plan's section: the table, then each endpoint's charts."""
    table = prediction_table(names, eps)
    if not table:
        return []
    lines = ["**Predicted latency** (an estimate from the performance model):", "", *table]
    calibrated = [
        f"{name}: {line}"
        for name, ep in zip(names, eps, strict=True)
        if ep is not None and (line := calibration_line(ep))
    ]
    if calibrated:
        lines += ["", "Corrected by measured runs (`hyperpod-dpd bench results --record`):"]
        lines += [f"- {line}" for line in calibrated]
    if any(ep is not None and _lower_bound(ep) for ep in eps):
        lines += ["", EC2_FOOTNOTE]
    # Endpoints of one layout, load and SLO share their curve: its 7 predictions are made once.
    curves: dict[tuple, LatencyCurve] = {}
    for name, ep in zip(names, eps, strict=True):
        if ep is not None:
            key = (ep.judged_scenario, ep.load, ep.calibration, ep.slo)
            if key not in curves:
                curves[key] = latency_curve(name, ep)
            lines += ["", *latency_markdown(replace(curves[key], endpoint=name))]
    return lines
