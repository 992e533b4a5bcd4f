"""vLLM results as `vllm bench serve --save-result` writes them, and the bench Job's log.

The keys, their order and their kinds are vLLM 0.19.0's (vllm/benchmarks/serve.py): main_async
writes the run's setup and each --metadata KEY=VALUE, then the traffic, then `benchmark`'s
result, whose per-request lists --save-detailed alone keeps; process_one_metric writes mean,
median, std and p<N> for each of --percentile-metrics. The figures are a plausible dev run, not
a measurement.
"""

import json
from typing import Any

from tools.bench.vllm_bench import BEGIN_MARKER, END_MARKER

# The dev endpoint's run, as the bench Job's --metadata writes it.
DEV_METADATA = {
    "dpd_stack": "dev",
    "dpd_endpoint": "dpd-test",
    "dpd_model": "Llama-3.3-70B-Instruct",
    "dpd_instance_type": "ml.p5.48xlarge",
    "dpd_image": "public.ecr.aws/deep-learning-containers/vllm:server-hyperpod-cuda-v1.1",
    "dpd_prefill_replicas": "1",
    "dpd_decode_replicas": "1",
    "dpd_tensor_parallel_size": "8",
}

LATENCIES = {
    "ttft": {"mean": 742.31, "median": 655.02, "std": 301.4, "p50": 655.02, "p90": 1180.7,
             "p99": 1893.2},
    "tpot": {"mean": 16.81, "median": 16.42, "std": 1.9, "p50": 16.42, "p90": 19.05,
             "p99": 22.4},
    "itl": {"mean": 16.79, "median": 15.1, "std": 6.2, "p50": 15.1, "p90": 21.9, "p99": 48.3},
    "e2el": {"mean": 9328.6, "median": 9101.4, "std": 1203.3, "p50": 9101.4, "p90": 10880.2,
             "p99": 12950.1},
}  # fmt: skip


def vllm_result(
    *,
    rate: float | str = 3.0,
    concurrency: int | None = None,
    completed: int = 900,
    input_tokens: int = 5000,
    output_tokens: int = 512,
    metadata: dict[str, str] | None = None,
    latencies: dict[str, dict[str, float]] | None = None,
    date: str = "20261205-143012",
) -> dict[str, Any]:
    duration = 304.7
    result: dict[str, Any] = {
        "date": date,
        "endpoint_type": "openai-chat",
        "backend": "openai-chat",
        "label": "hyperpod-dpd",
        "model_id": "/opt/ml/model",
        "tokenizer_id": "/mnt/weights",
        "num_prompts": completed,
        **(DEV_METADATA if metadata is None else metadata),
        "request_rate": rate,
        "burstiness": 1.0,
        "max_concurrency": concurrency,
        "duration": duration,
        "completed": completed,
        "failed": 0,
        "total_input_tokens": completed * input_tokens,
        "total_output_tokens": completed * output_tokens,
        "request_throughput": completed / duration,
        "request_goodput": None,
        "output_throughput": completed * output_tokens / duration,
        "total_token_throughput": completed * (input_tokens + output_tokens) / duration,
        "max_output_tokens_per_s": 1712.0,
        "max_concurrent_requests": 41,
        "rtfx": 0.0,
    }
    for metric, figures in (LATENCIES if latencies is None else latencies).items():
        for statistic, value in figures.items():
            result[f"{statistic}_{metric}_ms"] = value
    return result


def job_log(*results: dict[str, Any]) -> str:
    """The Job's log: what vllm bench serve prints, then each result between the markers."""
    lines = []
    for result in results:
        lines += [
            "Namespace(subparser='bench', bench_type='serve', seed=0, num_prompts=900, ...)",
            "Starting initial single prompt test run...",
            "Warming up with 4 requests...",
            "Starting main benchmark run...",
            "============ Serving Benchmark Result ============",
            f"Successful requests:                     {result['completed']}",
            BEGIN_MARKER,
            json.dumps(result),
            "",
            END_MARKER,
        ]
    return "\n".join(lines) + "\n"
