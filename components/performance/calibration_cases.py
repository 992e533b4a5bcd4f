"""Public measurements to hold the model against: `calibration/cases.yaml`.

Each case is a scenario (the scenario file's keys) with what was measured and where it was
published. `compare` predicts each and pairs every measured figure with the prediction.
Kinds: `online` (latency and throughput at a load), `offline-max-throughput` (every request
queued at once: throughput only), `burst` (N requests at once: TPOT and throughput at the
engine's full batch, TTFT mostly the drain), `decode-throughput` and `prefill-throughput` (one
role measured alone, the other given all it needs).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from components.performance.predict import Prediction, predict
from components.performance.scenario import Scenario, ScenarioError

CALIBRATION_DIR = Path(__file__).with_name("calibration")
CASES_PATH = CALIBRATION_DIR / "cases.yaml"
# The figures the acceptance targets judge: within 2x each, median error at most 30%.
LATENCY_METRICS = ("ttftMs", "tpotMs")
THROUGHPUT_METRICS = ("outputTokensPerSecond", "inputTokensPerSecond")
# A role measured alone: the other gets this many replicas, enough never to hold it back.
UNLIMITED_REPLICAS = 64
# Closed-loop clients that keep an offline run's engine as full as it admits.
OFFLINE_CLIENTS = 100_000


# Grace-Blackwell racks (GB200, GB300 NVL72) keep up to 72 GPUs on one NVLink domain, which no
# HyperPod instance has: their rows are shown but kept out of the medians.
RACK_SCALE_GPUS = ("GB200", "GB300")


@dataclass(frozen=True)
class Comparison:
    case_id: str
    metric: str
    measured: float
    predicted: float
    # Why the figure stays out of the medians: measured on a rack-scale system, or a burst's
    # TTFT (mostly the wait while the burst drains); None counts.
    set_aside: str | None = None

    @property
    def error(self) -> float:
        """Signed relative error: (predicted - measured) / measured."""
        return (self.predicted - self.measured) / self.measured

    @property
    def ratio(self) -> float:
        """How many times off, either way (1 is exact; the target is at most 2)."""
        return max(self.predicted / self.measured, self.measured / self.predicted)


def load_cases(path: Path = CASES_PATH) -> list[dict[str, Any]]:
    return yaml.safe_load(path.read_text())


def _prepared(case: dict[str, Any]) -> Scenario:
    """The case as the scenario its measurement ran: offline runs saturate, a role measured
    alone has the other role unbounded."""
    document = dict(case)
    kind = case.get("kind")
    workload = dict(document.get("workload") or {})
    if kind in ("offline-max-throughput", "prefill-throughput", "decode-throughput"):
        workload.pop("requestsPerSecond", None)
        workload["concurrency"] = workload.get("concurrency") or OFFLINE_CLIENTS
    document["workload"] = workload
    if kind == "decode-throughput" and "decode" in document:
        document["prefill"] = {**document["decode"], "replicas": UNLIMITED_REPLICAS}
    if kind == "prefill-throughput" and "prefill" in document:
        document["decode"] = {**document["prefill"], "replicas": UNLIMITED_REPLICAS}
    return Scenario.model_validate(document)


def _predicted(prediction: Prediction, metric: str, input_tokens: int) -> float:
    if metric == "inputTokensPerSecond":
        return prediction.requests_per_second * input_tokens
    return {
        "ttftMs": prediction.ttft_ms,
        "tpotMs": prediction.tpot_ms,
        "outputTokensPerSecond": prediction.output_tokens_per_second,
    }[metric]


def compare_case(case: dict[str, Any], base_dir: Path = CALIBRATION_DIR) -> list[Comparison]:
    scenario = _prepared(case)
    prediction = predict(scenario, base_dir)
    input_tokens = scenario.workload.typical_input_tokens or 0
    rack = str(case.get("gpu", "")).startswith(RACK_SCALE_GPUS)
    return [
        Comparison(
            case["id"],
            metric,
            float(value),
            _predicted(prediction, metric, input_tokens),
            "rack"
            if rack
            else "burst"
            if case.get("kind") == "burst" and metric == "ttftMs"
            else None,
        )
        for metric, value in case["measured"].items()
        if metric in LATENCY_METRICS + THROUGHPUT_METRICS
    ]


def compare(cases: list[dict[str, Any]]) -> tuple[list[Comparison], list[tuple[str, str]]]:
    """Every measured figure against its prediction, and the cases the model refused."""
    comparisons, refused = [], []
    for case in cases:
        try:
            comparisons += compare_case(case)
        except ScenarioError as refusal:
            refused.append((case["id"], str(refusal)))
    return comparisons, refused


def median_error(
    comparisons: list[Comparison], metrics: tuple[str, ...] = LATENCY_METRICS
) -> float:
    """Median |error| over `metrics`, of the figures not set aside."""
    errors = [abs(c.error) for c in comparisons if c.metric in metrics and not c.set_aside]
    return statistics.median(errors) if errors else float("nan")
