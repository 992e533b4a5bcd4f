"""Alert rules from each endpoint's SLO, and for autoscaling that reads no series."""

import json

from components.observability.alerts import alert_rules, rule_steps
from components.observability.watched import WatchedEndpoint, WatchedRole

FIXED = (WatchedRole("prefill", 1, 1), WatchedRole("decode", 1, 1))


def endpoint(**changes) -> WatchedEndpoint:
    return WatchedEndpoint(**{"name": "dpd", "namespace": "default", "roles": FIXED, **changes})


def test_an_endpoint_without_slo_or_autoscaling_has_no_rules():
    assert alert_rules([endpoint()]) == []


def test_the_slo_rules_fire_above_the_slo_in_seconds_for_five_minutes():
    ttft, tpot = alert_rules([endpoint(ttft_ms=1500, tpot_ms=45)])
    assert (ttft.title, ttft.above, ttft.for_) == (
        "default/dpd time to first token above SLO",
        1.5,
        "5m",
    )
    assert (tpot.title, tpot.above, tpot.for_) == (
        "default/dpd time per output token above SLO",
        0.045,
        "5m",
    )
    assert ttft.expr.startswith("histogram_quantile(0.9, ")
    assert "vllm:time_to_first_token_seconds_bucket" in ttft.expr
    assert "vllm:inter_token_latency_seconds_bucket" in tpot.expr
    assert 'pod_name=~"decode-dpd-' in tpot.expr


def test_only_the_objective_set_gets_a_rule():
    (only,) = alert_rules([endpoint(tpot_ms=50)])
    assert only.title.endswith("time per output token above SLO")


def test_a_role_autoscaling_on_a_named_series_is_watched_for_its_absence():
    roles = (WatchedRole("prefill", 2, 4, "vllm:num_requests_waiting"), WatchedRole("decode", 1, 1))
    (blind,) = alert_rules([endpoint(roles=roles)])
    assert blind.title == "default/dpd prefill autoscaling reads no series"
    assert blind.expr == (
        'absent(vllm:num_requests_waiting{namespace="default",'
        'pod_name=~"prefill-dpd-[a-z0-9]{1,10}-[a-z0-9]{5}"})'
    )
    assert (blind.above, blind.for_, blind.severity) == (0, "30m", "critical")
    assert "holds 2 replicas" in blind.summary


def test_each_rule_queries_prometheus_then_reduces_then_compares_with_its_threshold():
    (rule,) = alert_rules([endpoint(ttft_ms=800)])
    query, last, threshold = rule_steps(rule, "amp")
    assert (query["ref_id"], query["datasource_uid"]) == ("A", "amp")
    assert json.loads(query["model"])["expr"] == rule.expr
    assert json.loads(last["model"])["reducer"] == "last"
    assert last["datasource_uid"] == threshold["datasource_uid"] == "__expr__"
    condition = json.loads(threshold["model"])
    assert (condition["refId"], condition["expression"]) == ("C", "B")
    assert condition["conditions"][0]["evaluator"] == {"type": "gt", "params": [0.8]}
