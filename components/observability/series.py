"""The Prometheus series this stack queries, with the labels their owners document.

Every query the stack writes selects only on the labels listed here; the tests hold each query
to this table. Sources:
- inference and model-container series (`model_*`, `vllm:*`): AWS, "Implementing inference
  observability on HyperPod clusters", and AWS's inference dashboard
  (aws/sagemaker-hyperpod-cluster-setup, `dashboards/templates/inference.json`), which counts
  pods by `pod_name`; they carry no `pod` label. vLLM adds `engine` (`vllm/v1/metrics/loggers.py`);
- DCGM series carry `pod` (the same repository's `cluster.json` and `tasks.json`);
- kube-state-metrics: `docs/metrics/workload/deployment-metrics.md`.

A DPD role's pods are told apart by their names (`role_pods`): no public source says which
value `resource_name` takes for them, and a wrong guess selects nothing. An aggregated
endpoint's pods are named nowhere public, so its series are selected by `resource_name`, the
endpoint object's name, as AWS's dashboard does; an absent series fires the no-data alert.

vLLM 0.19's names (both images ship it): `vllm:kv_cache_usage_perc` and
`vllm:inter_token_latency_seconds` replaced `gpu_cache_usage_perc` and
`time_per_output_token_seconds` (vllm-project/vllm#29330).
"""

from dataclasses import dataclass

AWS_INFERENCE = "AWS, Implementing inference observability on HyperPod clusters"
AWS_DASHBOARDS = "aws/sagemaker-hyperpod-cluster-setup Grafana dashboard templates"
VLLM = "vLLM 0.19 vllm/v1/metrics/loggers.py"
KUBE_STATE = "kube-state-metrics docs/metrics/workload/deployment-metrics.md"

# The dimensions AWS documents on every inference and model-container series; `method`,
# `uri` and `status` are the invocation labels AWS's inference dashboard filters on.
INFERENCE_LABELS = frozenset(
    {
        "cluster_id",
        "cluster_name",
        "resource_name",
        "resource_type",
        "namespace",
        "model_name",
        "model_version",
        "model_container_type",
        "model_container_image",
        "pod_name",
        "node_name",
        "instance_type",
        "metric_source",
    }
)
INVOCATION_LABELS = INFERENCE_LABELS | {"method", "uri", "status"}
VLLM_LABELS = INFERENCE_LABELS | {"engine"}
HISTOGRAM_BUCKET = {"le"}


@dataclass(frozen=True)
class Series:
    labels: frozenset[str]
    source: str


def _histogram(name: str, labels: frozenset[str], source: str) -> dict[str, Series]:
    return {
        f"{name}_bucket": Series(labels | HISTOGRAM_BUCKET, source),
        f"{name}_sum": Series(labels, source),
        f"{name}_count": Series(labels, source),
    }


DOCUMENTED_SERIES: dict[str, Series] = {
    "model_concurrent_requests": Series(INVOCATION_LABELS, AWS_INFERENCE),
    "model_invocations_total": Series(INVOCATION_LABELS, AWS_INFERENCE),
    "model_errors_total": Series(INVOCATION_LABELS, AWS_INFERENCE),
    "vllm:num_requests_waiting": Series(VLLM_LABELS, VLLM),
    "vllm:num_requests_running": Series(VLLM_LABELS, VLLM),
    "vllm:kv_cache_usage_perc": Series(VLLM_LABELS, VLLM),
    **_histogram("vllm:time_to_first_token_seconds", VLLM_LABELS, VLLM),
    **_histogram("vllm:inter_token_latency_seconds", VLLM_LABELS, VLLM),
    **_histogram("vllm:e2e_request_latency_seconds", VLLM_LABELS, VLLM),
    "DCGM_FI_DEV_GPU_UTIL": Series(
        frozenset({"cluster_id", "Hostname", "gpu", "namespace", "pod"}), AWS_DASHBOARDS
    ),
    "kube_deployment_status_replicas": Series(frozenset({"namespace", "deployment"}), KUBE_STATE),
}

# The label naming the pod, on the series that carry one.
MODEL_POD_LABEL = "pod_name"
# The label naming the endpoint object a model series comes from (AWS's inference dashboard
# selects on it): what selects an aggregated endpoint's pods.
MODEL_RESOURCE_LABEL = "resource_name"
AGGREGATED_ROLE = "serving"
KUBERNETES_POD_LABEL = "pod"


def role_deployment(role: str, endpoint_name: str) -> str:
    return f"{role}-{endpoint_name}"


# A Deployment's pods are `<deployment>-<pod-template-hash>-<5 random>`: the hash is 1 to 10
# characters (controller_utils.go, ComputeHash), and the API server cuts the generateName before
# the random part to 58 characters (apiserver pkg/storage/names/generate.go).
POD_TEMPLATE_HASH_MAX = 10
GENERATED_NAME_BASE_MAX = 58
GENERATED_SUFFIX = 5


def role_pods(role: str, endpoint_name: str) -> str:
    """The regular expression of a role's pod names, `<deployment>-<hash>-<suffix>` as the API
    server cuts it (for long names, the 58-character cut falls inside the hash or the name).
    Matching the hash and suffix exactly keeps endpoint `dpd` from counting `dpd-test`'s pods;
    Kubernetes names hold no regular-expression metacharacters."""
    prefix = f"{role_deployment(role, endpoint_name)}-"
    suffix = f"[a-z0-9]{{{GENERATED_SUFFIX}}}"
    room = GENERATED_NAME_BASE_MAX - len(prefix)
    if room <= 0:
        return prefix[:GENERATED_NAME_BASE_MAX] + suffix
    whole = [f"[a-z0-9]{{1,{min(POD_TEMPLATE_HASH_MAX, room - 1)}}}-"] if room > 1 else []
    cut = [f"[a-z0-9]{{{room}}}"] if room <= POD_TEMPLATE_HASH_MAX else []
    hashes = "|".join(whole + cut)
    return f"{prefix}({hashes}){suffix}" if len(whole + cut) > 1 else f"{prefix}{hashes}{suffix}"


def model_pods(role: str, endpoint_name: str, namespace: str) -> str:
    """The matchers of one role's inference and model-container series: a DPD role's pods by
    their names, an aggregated endpoint's by the endpoint object's."""
    if role == AGGREGATED_ROLE:
        return f'namespace="{namespace}",{MODEL_RESOURCE_LABEL}="{endpoint_name}"'
    return f'namespace="{namespace}",{MODEL_POD_LABEL}=~"{role_pods(role, endpoint_name)}"'


def kubernetes_pods(role: str, endpoint_name: str, namespace: str) -> str:
    return f'namespace="{namespace}",{KUBERNETES_POD_LABEL}=~"{role_pods(role, endpoint_name)}"'


def deployment(role: str, endpoint_name: str, namespace: str) -> str:
    return f'namespace="{namespace}",deployment="{role_deployment(role, endpoint_name)}"'
