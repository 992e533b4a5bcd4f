"""The measured runs the model is fitted on and held against: `calibration/runs.yaml`.

Each run is a scenario (the scenario file's keys) with what was measured, its publisher and
date, and where it was published. `compare` predicts each and pairs every measured figure
with the prediction. Kinds: `online` (latency and throughput at a load),
`offline-max-throughput` (every request queued at once: throughput only), `burst` (N requests
at once: TPOT and throughput at the engine's full batch, TTFT mostly the drain),
`decode-throughput` and `prefill-throughput` (one role measured alone, the other given all it
needs). A publisher is one source of runs, sharing its harness, engine build and habits:
fitting holds whole publishers apart (scripts/calibration.py).
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from planner.predict import Prediction, predict
from planner.scenario import Scenario, ScenarioError

CALIBRATION_DIR = Path(__file__).with_name("calibration")
CASES_PATH = CALIBRATION_DIR / "runs.yaml"
# Latency figures by what they time: means or medians (the targets judge these: medians of
# the errors, and the share beyond 2x), and the tails.
TTFT_METRICS = ("ttftMs", "p50TtftMs")
TPOT_METRICS = ("tpotMs", "p50ItlMs")
TAIL_METRICS = ("p90TtftMs", "p99TtftMs", "p90ItlMs", "p99ItlMs")
THROUGHPUT_METRICS = ("outputTokensPerSecond", "inputTokensPerSecond")
# A case's `measuredP99` figures, as the metric each is compared on (MLPerf's TPOT p99 is over
# requests' mean TPOT, which fixed lengths make the mean: not compared).
P99_METRICS = {"ttftMs": "p99TtftMs"}
# A role measured alone: the other gets this many replicas, enough never to hold it back.
UNLIMITED_REPLICAS = 64
# Closed-loop clients that keep an offline run's engine as full as it admits.
OFFLINE_CLIENTS = 100_000
# No public run used LMCache's PD backend: the disaggregated ones ran Dynamo's or vLLM's NIXL
# connector, SGLang's Mooncake/NIXL transfer or TensorRT-LLM's, which the decoder pulls from
# without holding the prefiller.
MEASURED_KV_CONNECTOR = "nixl"
# Grace-Blackwell racks (GB200, GB300 NVL72) keep up to 72 GPUs on one NVLink domain, which no
# HyperPod instance has: their rows are shown but kept out of the medians.
RACK_SCALE_GPUS = ("GB200", "GB300")
# An open-loop run that achieved under this share of the rate it offered was overloaded, by
# its server or by its client: the arrivals its TTFT saw are not the scenario's.
OVERLOADED_SHARE = 0.9
# Publishers whose runs the model does not describe, left out of every fit and of the targets
# (shown all the same): the GKE Dynamo runs' KV transfer is 10 to 100 times slower than RDMA
# over their fabric allows, and GPUStack's bursts send 1,000 ShareGPT requests of every length
# at once.
UNDESCRIBED_PUBLISHERS = ("dynamo-gke", "gpustack")


@dataclass(frozen=True)
class Comparison:
    case: dict[str, Any]
    metric: str
    measured: float
    predicted: float
    # Why the figure stays out of the medians: measured on a rack-scale system, a burst's
    # TTFT (mostly the wait while the burst drains), an overloaded run's TTFT; None counts.
    set_aside: str | None = None

    @property
    def error(self) -> float:
        """Signed relative error: (predicted - measured) / measured."""
        return (self.predicted - self.measured) / self.measured

    @property
    def ratio(self) -> float:
        """How many times off, either way (1 is exact)."""
        return max(self.predicted / self.measured, self.measured / self.predicted)


def load_cases(path: Path = CASES_PATH) -> list[dict[str, Any]]:
    return yaml.load(path.read_text(), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _prepared(case: dict[str, Any]) -> Scenario:
    """The case as the scenario its measurement ran: offline runs saturate, a role measured
    alone has the other role unbounded."""
    document = dict(case)
    kind = case.get("kind")
    workload = dict(document.get("workload") or {})
    if kind in ("offline-max-throughput", "prefill-throughput", "decode-throughput"):
        workload.pop("requestsPerSecond", None)
        workload["concurrency"] = workload.get("concurrency") or OFFLINE_CLIENTS
    if kind == "burst":
        # N requests sent at once and nothing after: one wave.
        workload["requests"] = workload.get("requests") or workload.get("concurrency")
    document["workload"] = workload
    document.setdefault("kvConnector", MEASURED_KV_CONNECTOR)
    if kind == "decode-throughput" and "decode" in document:
        document["prefill"] = {**document["decode"], "replicas": UNLIMITED_REPLICAS}
    if kind == "prefill-throughput" and "prefill" in document:
        document["decode"] = {**document["prefill"], "replicas": UNLIMITED_REPLICAS}
    return Scenario.model_validate(document)


def _predicted(prediction: Prediction, metric: str, input_tokens: int) -> float:
    if metric == "inputTokensPerSecond":
        return prediction.requests_per_second * input_tokens
    if metric.startswith("p") and metric.endswith("TtftMs"):
        return prediction.ttft_at(int(metric[1:3]))
    if metric.startswith("p") and metric.endswith("ItlMs"):
        return prediction.itl_at(int(metric[1:3]))
    return {
        "ttftMs": prediction.ttft_ms,
        "tpotMs": prediction.tpot_ms,
        "outputTokensPerSecond": prediction.output_tokens_per_second,
    }[metric]


def _set_aside(case: dict[str, Any], scenario: Scenario, metric: str) -> str | None:
    if str(case.get("gpu", "")).startswith(RACK_SCALE_GPUS):
        return "rack"
    if "Ttft" not in metric and metric != "ttftMs":
        return None
    achieved, offered = case.get("achievedRequestsPerSecond"), scenario.workload.requests_per_second
    if case.get("kind") == "burst":
        return "burst"
    return "overloaded" if achieved and offered and achieved < OVERLOADED_SHARE * offered else None


def compare(cases: list[dict[str, Any]]) -> tuple[list[Comparison], list[tuple[str, str]]]:
    """Every measured figure against its prediction, and the cases the model refused."""
    comparisons, refused = [], []
    known = TTFT_METRICS + TPOT_METRICS + TAIL_METRICS + THROUGHPUT_METRICS
    for case in cases:
        try:
            scenario = _prepared(case)
            prediction = predict(scenario, CALIBRATION_DIR)
        except ScenarioError as refusal:
            refused.append((case["id"], str(refusal)))
            continue
        input_tokens = scenario.workload.typical_input_tokens or 0
        measured = dict(case["measured"])
        for metric, value in (case.get("measuredP99") or {}).items():
            if metric in P99_METRICS:
                measured[P99_METRICS[metric]] = value
        comparisons += [
            Comparison(
                case,
                metric,
                float(value),
                _predicted(prediction, metric, input_tokens),
                _set_aside(case, scenario, metric),
            )
            for metric, value in measured.items()
            if metric in known
        ]
    return comparisons, refused
