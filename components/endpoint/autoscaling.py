"""Per-role autoscaling: the typed setting and the CRD's `autoScalingSpec` entry (under pdSpec
per DPD role; at the top level for an aggregated endpoint). Prefill and decode scale apart, each
on its own Prometheus trigger (KEDA, which reaches AMP as the operator add-on's KEDA role).

The named metrics use only documented series: `waiting` (`vllm:num_requests_waiting`) and
`running` (`vllm:num_requests_running`) from vLLM's "Production Metrics"; `concurrent`
(`model_concurrent_requests`) from HyperPod's "Inference metrics". Defaults follow the DPD tuning
guide ("raise prefill replicas when the prefill queue is deep"): prefill scales on a queue of a
quarter of its --max-num-seqs, decode on three quarters of it running, which vLLM never exceeds,
so scale-out starts before the batch is full.

Series carry `pod_name`, not `pod` (series.py gives each label's source): a `pod` matcher selects
nothing, and KEDA then reads 0 (`ignoreNullValues` defaults to true and the CRD cannot set it),
so the role sits at its minimum; the stack's Grafana alerts on absent series (alerts.py).
"""

import re
from typing import Literal

from pydantic import Field

from components.core.findings import Finding, error
from components.core.promql import promql_problem
from components.core.shaped import shaped_str
from components.core.spec import Spec
from components.endpoint.schema import crd_shaped
from components.observability.queries import RUNNING, WAITING, role_sum
from components.observability.workspace import SERVER_ADDRESS

Metric = Literal["waiting", "running", "concurrent", "query"]
# An aggregated endpoint's pods are the one role `serving`.
Role = Literal["prefill", "decode", "serving"]

INT32_MAX = 2**31 - 1
# The largest target KEDA takes: it writes a target as a milli-quantity, which overflowed int64
# above about 9.2e15 until KEDA #7534 (pkg/scalers/scaler.go, GetMetricTargetMili).
TARGET_MAX = 9e15

# Each named metric's series name; the query sums it over the role's pods.
METRIC_SERIES = {
    "waiting": WAITING,
    "running": RUNNING,
    "concurrent": "model_concurrent_requests",
}
# The CRD's names for a role's section under pdSpec.autoScalingSpec.
CRD_ROLE_KEYS = {"prefill": "prefillAutoScaling", "decode": "decodingAutoScaling"}

_Seconds = Field(None, ge=0, le=INT32_MAX)


class RoleAutoscaling(Spec):
    min_replicas: int = Field(1, ge=1, le=INT32_MAX)
    max_replicas: int = Field(ge=1, le=INT32_MAX)
    # None takes the role's default: `waiting` on prefill, `running` on decode.
    metric: Metric | None = None
    # Per pod with metricType Average (the default), for the whole role with Value. None takes
    # the default of the role's default metric; a metric you name needs its target.
    target: float | None = Field(None, gt=0, le=TARGET_MAX)
    # The PromQL when metric is `query`.
    query: str | None = Field(None, min_length=1)
    metric_type: Literal["Average", "Value"] = "Average"
    # The AMP workspace to query; the stack's own when observability is on.
    server_address: (
        shaped_str(
            SERVER_ADDRESS,
            "must be an Amazon Managed Prometheus workspace address such as "
            "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-0123abcd-4567-89ef-"
            "0123-456789abcdef, without a trailing '/'",
        )
        | None
    ) = None
    # A CloudWatch trigger in the CRD's shape: beside the Prometheus trigger, or alone while no
    # metric, query or target is set.
    cloud_watch: crd_shaped("autoScalingSpec.cloudWatchTrigger") | None = None
    # The Prometheus trigger's name; None names it after the role and the metric.
    trigger_name: str | None = Field(None, min_length=1)
    # KEDA's activation threshold and metric cache, with the CRD's names (its defaults, 0 and
    # true, when unset).
    activation_target_value: float | None = Field(None, ge=0, le=TARGET_MAX)
    use_cached_metrics: bool | None = None
    # Optional windows, with the CRD's names and its defaults when unset.
    polling_interval: int | None = _Seconds
    cooldown_period: int | None = _Seconds
    initial_cooldown_period: int | None = _Seconds
    scale_up_stabilization_time: int | None = _Seconds
    scale_down_stabilization_time: int | None = _Seconds


# An aggregated pod decodes as a decoder does (its prompts' chunks ride in the same steps), so
# it scales as one.
DEFAULT_METRIC: dict[Role, Metric] = {
    "prefill": "waiting",
    "decode": "running",
    "serving": "running",
}
# The share of the role's --max-num-seqs its default metric targets per pod.
DEFAULT_TARGET_SHARE: dict[Role, float] = {"prefill": 0.25, "decode": 0.75, "serving": 0.75}


def metric_of(scaling: RoleAutoscaling, role: Role) -> Metric | None:
    """The metric of the role's Prometheus trigger; None when it scales on CloudWatch alone."""
    alone = scaling.cloud_watch is not None
    if alone and (scaling.metric, scaling.query, scaling.target) == (None, None, None):
        return None
    return scaling.metric or DEFAULT_METRIC[role]


def target_of(scaling: RoleAutoscaling, role: Role, max_num_seqs: int) -> float:
    """The target, or the role's default from its --max-num-seqs (a whole number, at least 1)."""
    if scaling.target is not None:
        return scaling.target
    return max(1, int(max_num_seqs * DEFAULT_TARGET_SHARE[role]))


def named_query(metric: str, role: Role, endpoint_name: str, namespace: str) -> str:
    return role_sum(METRIC_SERIES[metric], role, endpoint_name, namespace)


# The trigger's optional fields, which the CRD names as their settings' keys.
_TRIGGER_EXTRAS = {"activation_target_value", "use_cached_metrics"}
# The optional windows, which the CRD names as their settings' keys.
_WINDOWS = {
    "polling_interval",
    "cooldown_period",
    "initial_cooldown_period",
    "scale_up_stabilization_time",
    "scale_down_stabilization_time",
}


def role_autoscaling(
    scaling: RoleAutoscaling,
    role: Role,
    *,
    endpoint_name: str,
    sagemaker_endpoint: str | None,
    namespace: str,
    max_num_seqs: int,
    stack_server_address: str | None,
) -> dict:
    """One role's entry under `pdSpec.autoScalingSpec`. `endpoint_name` names its pods;
    `sagemaker_endpoint` goes in a CloudWatch trigger's EndpointName dimension."""
    entry: dict = {"minReplicaCount": scaling.min_replicas, "maxReplicaCount": scaling.max_replicas}
    if (metric := metric_of(scaling, role)) is not None:
        # check_role_autoscaling refuses metric `query` without a query.
        query = (
            scaling.query
            if metric == "query"
            else named_query(metric, role, endpoint_name, namespace)
        )
        trigger: dict = {"name": scaling.trigger_name or f"{role}-{metric}"}
        # Absent only before the stack's workspace is known; the stack checks refuse
        # autoscaling with nowhere to query.
        if address := scaling.server_address or stack_server_address:
            trigger["serverAddress"] = address
        entry["prometheusTrigger"] = trigger | {
            "query": query,
            "targetValue": target_of(scaling, role, max_num_seqs),
            "metricType": scaling.metric_type,
            **scaling.model_dump(by_alias=True, include=_TRIGGER_EXTRAS, exclude_none=True),
        }
    if (watched := scaling.cloud_watch) is not None:
        if _on_endpoint(watched):  # the live SageMaker endpoint in its EndpointName dimension
            watched = {
                **watched,
                "dimensions": [
                    {**d, "value": sagemaker_endpoint} if d["name"] == ENDPOINT_DIMENSION else d
                    for d in watched["dimensions"]
                ],
            }
        entry["cloudWatchTrigger"] = watched
    return entry | scaling.model_dump(by_alias=True, include=_WINDOWS, exclude_none=True)


# AWS's autoscaling walkthrough scales on the SageMaker endpoint's Invocations (hyperpod-cli
# examples), published per EndpointName and VariantName; CloudWatch answers only for both.
SAGEMAKER_NAMESPACE = "AWS/SageMaker"
ENDPOINT_DIMENSION = "EndpointName"
VARIANT_DIMENSION = "VariantName"
# What KEDA's aws-cloudwatch scaler refuses to go without (kedacore/keda,
# pkg/scalers/aws_cloudwatch_scaler.go), by the CRD's names.
CLOUD_WATCH_REQUIRED = ("namespace", "metricName", "dimensions", "targetValue")
# CloudWatch's statistics: the five standard ones, and extended ones such as p99 or tm90
# (GetMetricData's MetricStat.Stat).
METRIC_STATS = ("SampleCount", "Average", "Sum", "Minimum", "Maximum")
EXTENDED_STAT = re.compile(r"(p|tm|wm|tc|ts)(100|\d{1,2})(\.\d+)?")


def _on_endpoint(trigger: dict) -> bool:
    names = [d["name"] for d in trigger.get("dimensions", [])]
    return trigger.get("namespace") == SAGEMAKER_NAMESPACE and ENDPOINT_DIMENSION in names


def check_cloud_watch(trigger: dict, *, role: Role, endpoint_name: str | None) -> list[Finding]:
    """`endpoint_name` is the endpoint's endpointName setting."""
    problems = {
        key: "is required: KEDA refuses a CloudWatch trigger without it"
        for key in CLOUD_WATCH_REQUIRED
        if not trigger.get(key)
    }
    target = trigger.get("targetValue")
    if target is not None and not 0 < target <= TARGET_MAX:
        problems["targetValue"] = f"{target:g} is not a target KEDA takes: above 0, at most 9e15"
    stat = trigger.get("metricStat", "Average")
    if stat not in METRIC_STATS and not EXTENDED_STAT.fullmatch(stat):
        problems["metricStat"] = (
            f"{stat!r} is not a CloudWatch statistic: {', '.join(METRIC_STATS)}, or a percentile "
            "such as p99"
        )
    # KEDA's metricStatPeriod and metricCollectionTime, which the CRD's two fields set.
    period = trigger.get("metricCollectionPeriod", 300)
    window = trigger.get("metricCollectionStartTime", 300)
    if period not in (1, 5, 10, 30) and (period < 60 or period % 60):
        problems["metricCollectionPeriod"] = (
            f"{period} is not a period KEDA takes: 1, 5, 10, 30 or a multiple of 60"
        )
    elif window % period:
        problems["metricCollectionStartTime"] = (
            f"{window} is not a multiple of metricCollectionPeriod {period}, as KEDA needs"
        )
    if _on_endpoint(trigger) and (problem := _endpoint_dimension(trigger, endpoint_name)):
        problems["dimensions"] = problem
    return [
        error("cloudwatch-trigger", f"{role}.autoscaling.cloudWatch.{key}", why)
        for key, why in problems.items()
    ]


def _endpoint_dimension(trigger: dict, endpoint_name: str | None) -> str | None:
    values = {d["name"]: d["value"] for d in trigger["dimensions"]}
    if endpoint_name is None:
        return (
            "name EndpointName, but the endpoint sets no endpointName: the operator creates no "
            "SageMaker endpoint, and CloudWatch has no metric to scale on"
        )
    if values[ENDPOINT_DIMENSION] != endpoint_name:
        return (
            f"give EndpointName {values[ENDPOINT_DIMENSION]!r}: write this endpoint's "
            f"endpointName, {endpoint_name!r}, and the stack writes the live endpoint's name"
        )
    if VARIANT_DIMENSION not in values:
        return (
            "name EndpointName without VariantName; SageMaker publishes per endpoint and "
            "variant, and CloudWatch answers only for both: add {name: VariantName, value: "
            "AllTraffic} (AWS's autoscaling walkthrough)"
        )
    return None


def check_role_autoscaling(
    scaling: RoleAutoscaling,
    *,
    role: Role,
    replicas: int,
    max_num_seqs: int,
    endpoint_name: str | None = None,
) -> list[Finding]:
    """Fields are relative to the endpoint (`prefill.autoscaling.minReplicas`);
    `endpoint_name` is its endpointName setting."""
    field = f"{role}.autoscaling"
    found = []
    if scaling.cloud_watch is not None:
        found += check_cloud_watch(scaling.cloud_watch, role=role, endpoint_name=endpoint_name)
    if scaling.min_replicas > scaling.max_replicas:
        found.append(
            error(
                "autoscaling-range",
                f"{field}.minReplicas",
                f"{scaling.min_replicas} is above maxReplicas {scaling.max_replicas}; "
                "minReplicas must be at most maxReplicas",
            )
        )
    elif not scaling.min_replicas <= replicas <= scaling.max_replicas:
        found.append(
            error(
                "replicas-outside-range",
                f"{role}.replicas",
                f"{replicas} is the initial count, so it must lie within autoscaling's "
                f"{scaling.min_replicas}..{scaling.max_replicas}",
            )
        )
    metric = metric_of(scaling, role)
    if (metric == "query") != (scaling.query is not None):
        found.append(
            error(
                "autoscaling-query",
                f"{field}.query",
                "is required exactly when metric is `query` (the named metrics "
                f"{', '.join(METRIC_SERIES)} write their own)",
            )
        )
    elif scaling.query is not None and (problem := promql_problem(scaling.query)):
        query = scaling.query if len(scaling.query) <= 80 else f"{scaling.query[:77]}..."
        found.append(
            error(
                "autoscaling-query-parse",
                f"{field}.query",
                f"{query!r} is not valid PromQL ({problem}), and KEDA would "
                "pass it to Prometheus as written",
            )
        )
    if scaling.metric is not None and scaling.target is None:
        found.append(
            error("autoscaling-target", f"{field}.target", f"is required with metric {metric!r}")
        )
    target = target_of(scaling, role, max_num_seqs)
    if metric == "running" and scaling.metric_type == "Average" and target >= max_num_seqs:
        found.append(
            error(
                "autoscaling-target-unreachable",
                f"{field}.target",
                f"{target:g} running requests per pod is never reached: vLLM runs at most "
                f"--max-num-seqs {max_num_seqs} at once; set a lower target or raise "
                f"{role}.maxNumSeqs above it",
            )
        )
    return found
