"""A vLLM result held against the endpoint and against the model's prediction at its load.

Refused (ResultError, naming the field): another endpoint's, model's or instance type's run,
and a load the model does not describe or the workload does not have: every request at once,
both a rate and a concurrency limit, arrivals that are not Poisson, a ramp, prompts or outputs
of other lengths than the workload's. A rate other than the workload's is a point of a sweep,
and is predicted at that rate.
"""

import math
from dataclasses import dataclass

from components.endpoint.manifest import MODEL_PATH
from components.endpoint.spec import EndpointSpec, Slo
from infra.endpoint_predictions import ms
from planner.measured import Load, end_to_end_ms
from planner.predict import PERCENTILES, Prediction
from tools.bench.vllm_result import ResultError, VllmResult

# vLLM's random prompts are exactly --random-input-len tokens, and --ignore-eos makes every
# output --random-output-len; a mean 10% away is another workload.
LENGTH_TOLERANCE = 0.10
NAMES = {"ttft": "TTFT", "tpot": "TPOT", "itl": "ITL", "e2el": "E2EL"}


@dataclass(frozen=True)
class RunLayout:
    prefill_replicas: int
    decode_replicas: int
    tensor_parallel: int
    # Whether the run says its layout (the bench Job's --metadata), or it is assumed.
    stated: bool


def _metadata_int(result: VllmResult, key: str, fallback: int) -> int:
    value = result.metadata.get(key)
    if value is None:
        return fallback
    if not value.isdigit() or int(value) < 1:
        raise ResultError(f"{result.where}: {key}: {value!r:.40} is not a count")
    return int(value)


def run_layout(result: VllmResult, spec: EndpointSpec) -> RunLayout:
    return RunLayout(
        prefill_replicas=_metadata_int(result, "dpd_prefill_replicas", spec.prefill.replicas),
        decode_replicas=_metadata_int(result, "dpd_decode_replicas", spec.decoder.replicas),
        tensor_parallel=_metadata_int(
            result, "dpd_tensor_parallel_size", spec.tensor_parallel_size
        ),
        stated="dpd_prefill_replicas" in result.metadata,
    )


def check_result(result: VllmResult, spec: EndpointSpec, index: int, load: Load) -> None:
    where, said = result.where, result.metadata
    expected = {
        "dpd_endpoint": (spec.name, f"endpoints[{index}].name"),
        "dpd_model": (spec.model_name, f"endpoints[{index}].modelName"),
        "dpd_instance_type": (spec.instance_type, f"endpoints[{index}].instanceType"),
    }
    for key, (value, setting) in expected.items():
        if key in said and said[key] != value:
            raise ResultError(
                f"{where}: {key}: the run is {said[key]!r}'s, and {setting} is {value!r}; "
                "a measurement applies to what it measured"
            )
    if "dpd_model" not in said:
        served = {MODEL_PATH, spec.model_name}
        if spec.model_source.hugging_face is not None:
            served.add(spec.model_source.hugging_face.model_id)
        if result.model_id not in served:
            raise ResultError(
                f"{where}: model_id: {result.model_id!r:.80} is not the model endpoint "
                f"{spec.name} serves ({', '.join(sorted(served))})"
            )
    if result.ramp_up_strategy is not None:
        raise ResultError(
            f"{where}: ramp_up_strategy: {result.ramp_up_strategy!r:.20}: the rate changes "
            "during the run, so no one load describes it"
        )
    if result.max_concurrency is not None and result.request_rate is not None:
        raise ResultError(
            f"{where}: max_concurrency: {result.max_concurrency} clients and a request rate "
            f"of {result.request_rate:g} at once: neither an open nor a closed loop, which "
            "are the loads the model predicts"
        )
    if result.max_concurrency is None and result.request_rate is None:
        raise ResultError(
            f"{where}: request_rate: inf sends every request at once, a burst, not a steady "
            "load; run it with --request-rate or --max-concurrency"
        )
    if result.request_rate is not None and result.burstiness != 1.0:
        raise ResultError(
            f"{where}: burstiness: {result.burstiness:g} makes arrivals other than Poisson "
            "(1), which the model assumes"
        )
    for field, measured, expected, setting in (
        ("total_input_tokens", result.mean_input_tokens, load.input_tokens, "typicalInputTokens"),
        ("total_output_tokens", result.mean_output_tokens, load.output_tokens, "outputTokens"),
    ):
        if abs(measured - expected) > LENGTH_TOLERANCE * expected:
            raise ResultError(
                f"{result.where}: {field}: {measured:,.0f} tokens a request, where the "
                f"workload's are {expected:,} (endpoints[{index}].workload.{setting}): another "
                "load; run the Job `hyperpod-dpd bench` writes, which sends the workload's"
            )


def predicted_figures(prediction: Prediction, output_tokens: int) -> dict[tuple[str, str], float]:
    """What the model predicts, by (metric, statistic): the means of TTFT and TPOT, ITL (the
    time between tokens, TPOT without speculative decoding) and end-to-end latency, and the
    percentiles of TTFT and ITL (a request's TPOT and end-to-end latency it gives as means)."""
    figures = {
        ("ttft", "mean"): prediction.ttft_ms,
        ("tpot", "mean"): prediction.tpot_ms,
        ("itl", "mean"): prediction.tpot_ms,
        ("e2el", "mean"): end_to_end_ms(prediction, output_tokens),
    }
    for percentile in PERCENTILES:
        figures[("ttft", f"p{percentile}")] = prediction.ttft_at(percentile)
        figures[("itl", f"p{percentile}")] = prediction.itl_at(percentile)
    figures[("ttft", "median")] = prediction.ttft_at(50)
    figures[("itl", "median")] = prediction.itl_at(50)
    return figures


def error(predicted: float, measured: float) -> float | None:
    return None if measured == 0 else (predicted - measured) / measured


def _ms(value: float) -> str:
    return ms(value) if math.isfinite(value) else "without bound"


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:+.0%}"


def comparison_rows(
    result: VllmResult, predicted: Prediction, calibrated: Prediction | None
) -> list[list[str]]:
    output_tokens = round(result.mean_output_tokens)
    model = predicted_figures(predicted, output_tokens)
    corrected = predicted_figures(calibrated, output_tokens) if calibrated else {}
    rows = []
    for metric in sorted(result.latency, key=list(NAMES).index):
        figures = result.latency[metric]
        # mean, median, then the percentiles in order; std aside.
        order = {"mean": -2.0, "median": -1.0}
        for statistic in sorted(
            (s for s in figures if s != "std"), key=lambda s: order.get(s) or float(s[1:])
        ):
            measured = figures[statistic]
            row = [NAMES[metric], statistic, _ms(measured)]
            for source in (model, corrected) if calibrated else (model,):
                value = source.get((metric, statistic))
                row += (
                    ["-", "-"] if value is None else [_ms(value), _percent(error(value, measured))]
                )
            rows.append(row)
    for name, measured, attribute in (
        ("requests/s", result.request_throughput, "requests_per_second"),
        ("output tok/s", result.output_throughput, "output_tokens_per_second"),
    ):
        row = ["throughput", name, f"{measured:,.4g}"]
        for source in (predicted, calibrated) if calibrated else (predicted,):
            value = getattr(source, attribute)
            row += [f"{value:,.4g}", _percent(error(value, measured))]
        rows.append(row)
    return rows


def table(rows: list[list[str]], header: list[str]) -> list[str]:
    width = max(len(header), *(len(row) for row in rows))
    padded = [cells + [""] * (width - len(cells)) for cells in [header, *rows]]
    widths = [max(len(cells[i]) for cells in padded) for i in range(width)]
    return [
        "  " + "  ".join(cell.ljust(w) if i < 2 else cell.rjust(w) for i, (cell, w) in
                         enumerate(zip(cells, widths, strict=True))).rstrip()
        for cells in padded
    ]  # fmt: skip


def slo_lines(result: VllmResult, slo: Slo | None, index: int) -> list[str]:
    """The SLO judged on what was measured, at its percentile: `tpotMs` on the time between
    tokens (ITL), as the planner judges it, where the result has it."""
    if slo is None:
        return [f"  no SLO to judge (endpoints[{index}].workload.slo)"]
    lines = []
    between = "itl" if "itl" in result.latency else "tpot"
    for metric, limit in (("ttft", slo.ttft_ms), (between, slo.tpot_ms)):
        if limit is None:
            continue
        figures = result.latency.get(metric, {})
        percentile = f"p{slo.percentile}"
        statistic = percentile if percentile in figures else "mean"
        measured = figures[statistic]
        verdict = "met" if measured <= limit else "missed"
        caveat = (
            ""
            if statistic == percentile
            else f" (no {percentile} in the result: run with --metric-percentiles 50,90,95,99)"
        )
        lines.append(
            f"  SLO {NAMES[metric]} <= {_ms(limit)} at {percentile}: measured "
            f"{statistic} {_ms(measured)}, {verdict}{caveat}"
        )
    return lines
