"""The PromQL the stack writes over one role of an endpoint, from the series in `series`.

Latencies are vLLM histograms' 90th percentile over five minutes, as `workload.slo` states. A
DPD request's time to first token is the prefill role's end-to-end p90 plus the decode role's
TTFT p90, as AWS's inference dashboard sums its TTFT; time per output token is decode's.
"""

from components.observability.series import deployment, kubernetes_pods, model_pods

QUANTILE = 0.9
RATE_WINDOW = "5m"

TTFT = "vllm:time_to_first_token_seconds"
INTER_TOKEN = "vllm:inter_token_latency_seconds"
E2E = "vllm:e2e_request_latency_seconds"
WAITING = "vllm:num_requests_waiting"
RUNNING = "vllm:num_requests_running"
KV_CACHE_USE = "vllm:kv_cache_usage_perc"
GPU_USE = "DCGM_FI_DEV_GPU_UTIL"
REPLICAS = "kube_deployment_status_replicas"


def role_sum(series: str, role: str, endpoint: str, namespace: str) -> str:
    return f"sum({series}{{{model_pods(role, endpoint, namespace)}}})"


def role_max(series: str, role: str, endpoint: str, namespace: str) -> str:
    """A model series at its highest pod: the pod that fills up first."""
    return f"max({series}{{{model_pods(role, endpoint, namespace)}}})"


def role_p90(histogram: str, role: str, endpoint: str, namespace: str) -> str:
    """The 90th percentile of a vLLM histogram over the role's pods, in its unit (seconds)."""
    buckets = f"{histogram}_bucket{{{model_pods(role, endpoint, namespace)}}}"
    return f"histogram_quantile({QUANTILE}, sum by (le) (rate({buckets}[{RATE_WINDOW}])))"


def gpu_use(role: str, endpoint: str, namespace: str) -> str:
    """The mean utilization, in percent, of the GPUs the role's pods hold (DCGM)."""
    return f"avg({GPU_USE}{{{kubernetes_pods(role, endpoint, namespace)}}})"


def replicas(role: str, endpoint: str, namespace: str) -> str:
    return f"sum({REPLICAS}{{{deployment(role, endpoint, namespace)}}})"


def constant(value: float) -> str:
    return f"vector({value:g})"


def ttft_p90(endpoint: str, namespace: str) -> str:
    """The time to first token a DPD request sees, in seconds (see the module's note)."""
    prefill = role_p90(E2E, "prefill", endpoint, namespace)
    return f"{prefill} + {role_p90(TTFT, 'decode', endpoint, namespace)}"


def tpot_p90(endpoint: str, namespace: str) -> str:
    return role_p90(INTER_TOKEN, "decode", endpoint, namespace)


def absent(series: str, role: str, endpoint: str, namespace: str) -> str:
    """1 while no series of the role's pods arrives: what an autoscaler would read as 0."""
    return f"absent({series}{{{model_pods(role, endpoint, namespace)}}})"
