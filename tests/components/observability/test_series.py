"""Every PromQL the stack writes parses and selects only documented series and labels."""

import re

import pytest

from components.endpoint.autoscaling import METRIC_SERIES, named_query
from components.observability.alerts import alert_rules
from components.observability.dashboard import dpd_dashboard
from components.observability.series import DOCUMENTED_SERIES, model_pods, role_pods
from components.observability.watched import WatchedEndpoint, WatchedRole
from tests.components.observability.promql import undocumented

ENDPOINT = WatchedEndpoint(
    name="dpd",
    namespace="inference",
    roles=(
        WatchedRole("prefill", 1, 4, "vllm:num_requests_waiting"),
        WatchedRole("decode", 2, 6, "model_concurrent_requests"),
    ),
    ttft_ms=2000,
    tpot_ms=60,
)


def _panel_queries():
    return [
        (f"panel {panel['title']} {target['legendFormat']}", target["expr"])
        for panel in dpd_dashboard([ENDPOINT])["panels"]
        for target in panel.get("targets", [])
    ]


STACK_QUERIES = [
    *[
        (f"autoscaling {metric} {role}", named_query(metric, role, "dpd", "inference"))
        for metric in METRIC_SERIES
        for role in ("prefill", "decode")
    ],
    *_panel_queries(),
    *[(f"alert {rule.title}", rule.expr) for rule in alert_rules([ENDPOINT])],
]


@pytest.mark.parametrize("expr", [q for _, q in STACK_QUERIES], ids=[i for i, _ in STACK_QUERIES])
def test_every_query_selects_only_documented_series_and_labels(expr):
    assert undocumented(expr) == []


@pytest.mark.parametrize(
    "expr, problem",
    [
        (
            'sum(vllm:num_requests_waiting{pod=~"prefill-dpd-.*"})',
            "vllm:num_requests_waiting has no label pod",
        ),
        ('DCGM_FI_DEV_GPU_UTIL{pod_name="x"}', "DCGM_FI_DEV_GPU_UTIL has no label pod_name"),
        ("sum(vllm:prefill_queue_depth)", "vllm:prefill_queue_depth is not a documented series"),
        (
            "sum by (pod) (vllm:num_requests_running)",
            "vllm:num_requests_running is grouped by pod, which it does not carry",
        ),
    ],
)
def test_the_check_names_what_the_series_do_not_carry(expr, problem):
    assert problem in undocumented(expr)


def test_the_check_refuses_what_does_not_parse():
    with pytest.raises(ValueError):
        undocumented('sum(vllm:num_requests_waiting{namespace="x"')


def test_model_series_select_a_role_by_namespace_and_pod_name():
    assert model_pods("decode", "dpd", "inference") == (
        'namespace="inference",pod_name=~"decode-dpd-[a-z0-9]{1,10}-[a-z0-9]{5}"'
    )


def test_a_role_pattern_does_not_reach_an_endpoint_whose_name_extends_it():
    pattern = re.compile(role_pods("prefill", "dpd"))
    assert pattern.fullmatch("prefill-dpd-7c9f8d6b5-x2x4q")
    assert not pattern.fullmatch("prefill-dpd-test-7c9f8d6b5-x2x4q")


def pod_name(deployment: str, template_hash: str) -> str:
    """A pod's name as the API server makes it: the ReplicaSet's generateName cut to 58
    characters, then 5 random ones."""
    return f"{deployment}-{template_hash}-"[:58] + "x2x4q"


@pytest.mark.parametrize("length", [30, 38, 39, 42, 47, 48, 49, 55])
@pytest.mark.parametrize("template_hash", ["5", "7c9f8d6b5", "7c9f8d6b5b"])
def test_a_long_endpoint_name_still_finds_its_pods_where_kubernetes_cuts_their_names(
    length, template_hash
):
    name = ("llama-3-3-70b-instruct-" * 3)[:length].rstrip("-")
    pod = pod_name(f"prefill-{name}", template_hash)
    assert re.fullmatch(role_pods("prefill", name), pod), pod


def test_a_cut_pattern_still_refuses_a_longer_neighbour_in_full():
    name = "a" * 40
    pattern = re.compile(role_pods("decode", name))
    assert pattern.fullmatch(pod_name(f"decode-{name}", "7c9f8d6b5"))
    assert not pattern.fullmatch(pod_name(f"decode-{name}-b", "7c9f8d6b5"))


def test_each_documented_series_names_its_source():
    assert all(series.source for series in DOCUMENTED_SERIES.values())
