"""The `vllm bench serve` runs the Job makes (vLLM 0.19.0, vllm/benchmarks/serve.py): how many
prompts make a steady state, each run's command line, and the script that prints each result
between two marker lines, so that `kubectl logs job/...` gives it back."""

import math
import shlex
from dataclasses import dataclass

from components.endpoint.engines.engine import VLLM
from components.endpoint.spec import EndpointSpec
from components.endpoint.vllm_args import served_model
from planner.measured import Load, end_to_end_ms
from planner.predict import Prediction

BEGIN_MARKER = "----- vllm bench serve result begin -----"
END_MARKER = "----- vllm bench serve result end -----"

# Steady state: each load runs at least 5 minutes and at least ten times the requests it holds
# in flight (Little's law: rate x end-to-end latency), so the ramp at the start and the drain
# at the end are a small part of what is measured; never fewer than 100 prompts.
STEADY_SECONDS = 300
IN_FLIGHT_WAVES = 10
MIN_PROMPTS = 100

# Sent and waited for before each measured run, and left out of its figures: the first
# requests pay for cold connections on the router and the KV path.
WARMUP_REQUESTS = 4

# vLLM's percentiles the report reads, those an SLO may be set at (90 unless it says).
PERCENTILES = "50,90,95,99"
PERCENTILE_METRICS = "ttft,tpot,itl,e2el"

# vllm bench serve polls the endpoint this long before its first request.
READY_SECONDS = 600
RESULTS = "/tmp/results"


@dataclass(frozen=True)
class BenchRun:
    load: Load
    prompts: int
    # None for an engine the planner has no model of.
    prediction: Prediction | None

    @property
    def seconds(self) -> float:
        """How long the model says it takes: the prompts at the served rate, then one
        request's end-to-end latency to drain; without a prediction, the open loop's arrivals
        and a minute to drain, or an hour for a closed loop, whose pace nothing predicts."""
        if self.prediction is None:
            rate = self.load.requests_per_second
            return self.prompts / rate + 60 if rate and not self.load.closed_loop else 3600
        served = max(self.prediction.requests_per_second, 1e-9)
        return self.prompts / served + _latency_ms(self.prediction, self.load.output_tokens) / 1e3


def _latency_ms(prediction: Prediction, output_tokens: int) -> float:
    """A request's predicted end-to-end latency; past the layout's capacity, where the queue
    has no bound, the latency without it: the run ends as fast as the layout serves."""
    if math.isfinite(prediction.ttft_ms):
        return end_to_end_ms(prediction, output_tokens)
    unqueued = prediction.prefill_ms + prediction.kv_transfer_ms
    return unqueued + max(output_tokens - 1, 0) * prediction.tpot_ms


def prompt_count(load: Load, prediction: Prediction | None) -> int:
    """Enough prompts for a steady state: an open loop arrives at its own rate, even past the
    layout's capacity; a closed loop at the rate its clients are served."""
    if prediction is None:
        rate = 0.0 if load.closed_loop else load.requests_per_second or 0.0
        in_flight = float(load.concurrency or 1) if load.closed_loop else 0.0
    elif load.closed_loop:
        rate = prediction.requests_per_second
        in_flight = float(load.concurrency or 1)
    else:
        rate = load.requests_per_second or prediction.requests_per_second
        # Past capacity the layout holds what it serves at once; the rest waits in the queue.
        held = rate if not prediction.saturated else prediction.max_requests_per_second
        in_flight = held * _latency_ms(prediction, load.output_tokens) / 1e3
    return max(
        MIN_PROMPTS,
        math.ceil(rate * STEADY_SECONDS),
        math.ceil(IN_FLIGHT_WAVES * in_flight),
    )


def client(spec: EndpointSpec) -> tuple[str, str]:
    """vLLM's backend and the request path, both OpenAI's API: on vLLM the endpoint's own
    completions API when its invocationEndpoint names one, else the plain completions API vLLM
    always serves; the chat completions the other engines serve (TGI's Messages API, SGLang's
    OpenAI server, DJL LMI's "Chat Completions API Schema" on v1/chat/completions)."""
    path = (spec.invocation_endpoint or "").strip("/")
    if path == "v1/chat/completions" or spec.engine != VLLM:
        return "openai-chat", "/v1/chat/completions"
    return "openai", "/v1/completions"


def _metadata_args(stack: str, spec: EndpointSpec) -> list[str]:
    """What `bench results` checks the result against, which vLLM writes into its JSON."""
    return [
        f"dpd_stack={stack}",
        f"dpd_endpoint={spec.name}",
        f"dpd_model={spec.model_name}",
        f"dpd_instance_type={spec.instance_type}",
        f"dpd_image={spec.image}",
        f"dpd_prefill_replicas={spec.prefill.replicas}",
        # An aggregated endpoint's serving pods stand as its decoders (endpoint_scenario.py).
        f"dpd_decode_replicas={spec.decoder.replicas}",
        f"dpd_tensor_parallel_size={spec.tensor_parallel_size}",
    ]


def bench_args(
    stack: str, spec: EndpointSpec, tokenizer: str, run: BenchRun, result_file: str, url: str
) -> list[str]:
    """One run's `vllm bench serve` command line against the endpoint at `url`."""
    backend, path = client(spec)
    load = run.load
    arrivals = (
        ["--max-concurrency", str(load.concurrency)]
        if load.closed_loop
        else ["--request-rate", f"{load.requests_per_second:g}"]
    )
    return [
        "vllm", "bench", "serve",
        "--backend", backend,
        "--base-url", url,
        "--endpoint", path,
        "--model", served_model(spec),
        "--tokenizer", tokenizer,
        "--dataset-name", "random",
        "--random-input-len", str(load.input_tokens),
        "--random-output-len", str(load.output_tokens),
        # Every request generates its full output, as the workload's outputTokens says.
        "--ignore-eos",
        "--num-prompts", str(run.prompts),
        *arrivals,
        "--num-warmups", str(WARMUP_REQUESTS),
        "--percentile-metrics", PERCENTILE_METRICS,
        "--metric-percentiles", PERCENTILES,
        "--ready-check-timeout-sec", str(READY_SECONDS),
        "--disable-tqdm",
        "--label", "hyperpod-dpd",
        "--save-result",
        "--result-dir", RESULTS,
        "--result-filename", result_file,
        "--metadata", *_metadata_args(stack, spec),
    ]  # fmt: skip


def bench_script(
    stack: str, spec: EndpointSpec, tokenizer: str, runs: list[BenchRun], url: str
) -> str:
    lines = ["set -eu", f"mkdir -p {RESULTS}"]
    for n, run in enumerate(runs, start=1):
        result = f"run-{n}.json"
        lines += [
            shlex.join(bench_args(stack, spec, tokenizer, run, result, url)),
            f"echo {shlex.quote(BEGIN_MARKER)}",
            f"cat {RESULTS}/{result}",
            "echo",
            f"echo {shlex.quote(END_MARKER)}",
        ]
    return "\n".join(lines) + "\n"
