"""What a benchmark of a live endpoint measured, and how that corrects the model.

A run is one `vllm bench serve` at a load (prompt and output lengths, and requests per second
or concurrent clients) on a layout. The model predicts mean TTFT and mean TPOT, so a run's
means are what it is held to: for each run, measured / predicted at that run's own load and
layout. A correction multiplies a prediction by the geometric mean of those ratios over the
runs, so two runs 20% slow and 20% fast cancel out, and each ratio is taken against the model
as it is today, not as it was when the run was recorded. A correction is held within
MAX_CORRECTION either way, and says so: runs that far from the model measured something else
(another load, layout or image), and must not silently scale every later prediction. Choosing
the runs (the same endpoint, model, instance type and image) is the caller's.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from components.endpoint.spec import Workload
from planner.predict import Prediction, predict
from planner.scenario import RoleLayout, Scenario

# The most a correction scales a prediction, either way.
MAX_CORRECTION = 4.0


@dataclass(frozen=True)
class Load:
    """A benchmark's traffic: open loop at `requests_per_second` (Poisson arrivals), or closed
    loop with `concurrency` clients each sending its next request when the last one ends."""

    input_tokens: int
    output_tokens: int
    requests_per_second: float | None = None
    concurrency: int | None = None

    @property
    def closed_loop(self) -> bool:
        return self.requests_per_second is None

    def text(self) -> str:
        arrivals = (
            f"{self.concurrency} concurrent client{'s' * (self.concurrency != 1)}"
            if self.closed_loop
            else f"{self.requests_per_second:g} requests/s"
        )
        return f"{arrivals}, prompts of {self.input_tokens:,} tokens, {self.output_tokens:,} out"


def workload_load(workload: Workload | None, routing_threshold: int) -> Load | None:
    """The load a workload describes, as the planner reads it (endpoint_scenario.py): prompts
    of `typicalInputTokens`, else of `routingThreshold`; one client when it gives neither a rate
    nor a concurrency. None without `outputTokens`."""
    if workload is None or workload.output_tokens is None:
        return None
    rate = workload.requests_per_second
    return Load(
        input_tokens=workload.typical_input_tokens or max(routing_threshold, 1),
        output_tokens=workload.output_tokens,
        requests_per_second=rate,
        concurrency=None if rate is not None else (workload.concurrency or 1),
    )


def scenario_at(
    scenario: Scenario,
    load: Load,
    *,
    prefill_replicas: int | None = None,
    decode_replicas: int | None = None,
    tensor_parallel: int | None = None,
) -> Scenario:
    """`scenario` under `load`, on other replica counts or tensor-parallel size if given."""
    workload = scenario.workload.model_copy(
        update={
            "typical_input_tokens": load.input_tokens,
            "output_tokens": load.output_tokens,
            "requests_per_second": load.requests_per_second,
            "concurrency": load.concurrency,
        }
    )

    def role(layout: RoleLayout | None, replicas: int | None) -> RoleLayout | None:
        update = {"replicas": replicas, "tensor_parallel": tensor_parallel}
        update = {key: value for key, value in update.items() if value is not None}
        return None if layout is None else layout.model_copy(update=update)

    return scenario.model_copy(
        update={
            "workload": workload,
            "prefill": role(scenario.prefill, prefill_replicas),
            "decode": role(scenario.decode, decode_replicas),
        }
    )


def end_to_end_ms(prediction: Prediction, output_tokens: int) -> float:
    """A request's predicted latency: its first token, then one TPOT for each other token."""
    return prediction.ttft_ms + max(output_tokens - 1, 0) * prediction.tpot_ms


@dataclass(frozen=True)
class MeasuredRun:
    """One recorded benchmark: the scenario it ran (its load and layout), the day vLLM ran it
    (YYYY-MM-DD), and its mean latencies."""

    scenario: Scenario
    date: str
    ttft_ms: float
    tpot_ms: float


@dataclass(frozen=True)
class Calibration:
    """The correction that a set of runs makes: factors on TTFT and TPOT (None where no run
    gave one), how many runs, and the day of the latest."""

    runs: int
    latest: str
    ttft_factor: float | None
    tpot_factor: float | None
    # What the runs measured against the model where a factor is held at MAX_CORRECTION:
    # "TTFT 2.1e+305x the model's"; empty when neither is.
    bounded: str = ""

    def label(self) -> str:
        return f"calibrated on {self.runs} run{'s' * (self.runs != 1)}, {self.latest}"

    def factors_text(self) -> str:
        """`TTFT x1.31, TPOT x0.92 of the model's figures`."""
        parts = [
            f"{name} x{factor:.2f}"
            for name, factor in (("TTFT", self.ttft_factor), ("TPOT", self.tpot_factor))
            if factor is not None
        ]
        return f"{', '.join(parts)} of the model's figures"

    def apply(self, prediction: Prediction, load: Load | None = None) -> Prediction:
        """The prediction corrected. TTFT's parts and percentiles scale with it, the
        inter-token percentiles with TPOT. The throughput of an open-loop
        load is the load itself and stays; a closed loop's clients send as fast as requests
        end, so its throughput falls as its latency grows."""
        ttft = self.ttft_factor or 1.0
        tpot = self.tpot_factor or 1.0
        corrected = replace(
            prediction,
            ttft_ms=prediction.ttft_ms * ttft,
            tpot_ms=prediction.tpot_ms * tpot,
            queue_ms=prediction.queue_ms * ttft,
            prefill_ms=prediction.prefill_ms * ttft,
            kv_transfer_ms=prediction.kv_transfer_ms * ttft,
            ttft_percentiles_ms=tuple(p * ttft for p in prediction.ttft_percentiles_ms),
            itl_percentiles_ms=tuple(p * tpot for p in prediction.itl_percentiles_ms),
        )
        if load is None or not load.closed_loop:
            return corrected
        slower = end_to_end_ms(prediction, load.output_tokens) / end_to_end_ms(
            corrected, load.output_tokens
        )
        return replace(
            corrected,
            requests_per_second=prediction.requests_per_second * slower,
            output_tokens_per_second=prediction.output_tokens_per_second * slower,
        )


def corrected(
    prediction: Prediction, scenario: Scenario, calibration: Calibration | None
) -> Prediction:
    if calibration is None:
        return prediction
    return calibration.apply(prediction, workload_load(scenario.workload, 1))


def _geometric_mean(ratios: Sequence[float]) -> float | None:
    usable = [r for r in ratios if math.isfinite(r) and r > 0]
    if not usable:
        return None
    return math.exp(math.fsum(math.log(r) for r in usable) / len(usable))


def _bounded(factor: float | None) -> float | None:
    return None if factor is None else min(max(factor, 1 / MAX_CORRECTION), MAX_CORRECTION)


def calibrate(
    runs: Sequence[MeasuredRun], predictor: Callable[[Scenario], Prediction] = predict
) -> Calibration | None:
    """The correction these runs make, each held against the model at its own load and
    layout; None without runs. A run the model predicts saturated gives no
    TTFT ratio: its predicted queue has no bound to compare with."""
    if not runs:
        return None
    ttft_ratios: list[float] = []
    tpot_ratios: list[float] = []
    for run in runs:
        predicted = predictor(run.scenario)
        if not predicted.saturated and predicted.ttft_ms > 0:
            ttft_ratios.append(run.ttft_ms / predicted.ttft_ms)
        if predicted.tpot_ms > 0:
            tpot_ratios.append(run.tpot_ms / predicted.tpot_ms)
    factors = {"TTFT": _geometric_mean(ttft_ratios), "TPOT": _geometric_mean(tpot_ratios)}
    held = [
        f"{name} {factor:.3g}x the model's"
        for name, factor in factors.items()
        if factor is not None and factor != _bounded(factor)
    ]
    return Calibration(
        runs=len(runs),
        latest=max(run.date for run in runs),
        ttft_factor=_bounded(factors["TTFT"]),
        tpot_factor=_bounded(factors["TPOT"]),
        bounded=" and ".join(held),
    )
