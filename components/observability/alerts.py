"""The alert rules the stack writes into Grafana, from each endpoint's SLO and autoscaling.

- SLO: time to first token, or per output token, at p90 above `workload.slo` for `SLO_FOR`.
- Autoscaling blind: a role autoscaling on a named metric whose series has not arrived for
  `ABSENT_FOR`: KEDA reads it as 0 and the CRD cannot make that an error. The window outlasts a
  large model's first load, before which vLLM serves no metrics.

Each rule is Grafana's three steps: the PromQL (A), its last value (B), the threshold (C). No
data is OK: an idle endpoint has no latency, and a present series makes `absent` return nothing.
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass

from components.observability import queries
from components.observability.watched import WatchedEndpoint

SLO_FOR = "5m"
ABSENT_FOR = "30m"
EVALUATION_SECONDS = 60
# How far back the query looks: the rate window and some.
LOOKBACK_SECONDS = 600
EXPRESSIONS = "__expr__"


@dataclass(frozen=True)
class AlertRule:
    title: str
    expr: str
    # The rule fires while the query's last value is above this.
    above: float
    for_: str
    summary: str
    severity: str


def alert_rules(endpoints: Sequence[WatchedEndpoint]) -> list[AlertRule]:
    rules = []
    for endpoint in endpoints:
        where = f"{endpoint.namespace}/{endpoint.name}"
        targets = (
            ("time to first token", endpoint.ttft_ms, queries.ttft_p90),
            ("time per output token", endpoint.tpot_ms, queries.tpot_p90),
        )
        rules += [
            AlertRule(
                title=f"{where} {what} above SLO",
                expr=p90(endpoint.pod_name_prefix, endpoint.namespace),
                above=slo_ms / 1000,
                for_=SLO_FOR,
                summary=f"p90 {what} of {where} is above its SLO of {slo_ms:g} ms",
                severity="warning",
            )
            for what, slo_ms, p90 in targets
            if slo_ms is not None
        ]
        rules += [
            AlertRule(
                title=f"{where} {role.role} autoscaling reads no series",
                expr=queries.absent(
                    role.autoscaling_series, role.role, endpoint.pod_name_prefix, endpoint.namespace
                ),
                above=0,
                for_=ABSENT_FOR,
                summary=f"no {role.autoscaling_series} series of the {role.role} pods of {where} "
                f"reaches Prometheus, so its autoscaling reads 0 and holds {role.min_replicas} "
                "replicas; check the endpoint's metrics and the observability add-on",
                severity="critical",
            )
            for role in endpoint.roles
            if role.autoscaling_series is not None
        ]
    return rules


def rule_steps(rule: AlertRule, datasource_uid: str) -> list[dict]:
    """The rule's data steps as Grafana's alerting API takes them (`model` is JSON)."""
    query = {
        "ref_id": "A",
        "datasource_uid": datasource_uid,
        "relative_time_range": {"from_": LOOKBACK_SECONDS, "to": 0},
        "model": {"refId": "A", "expr": rule.expr, "instant": True, "range": False},
    }
    last = {"refId": "B", "type": "reduce", "expression": "A", "reducer": "last"}
    threshold = {
        "refId": "C",
        "type": "threshold",
        "expression": "B",
        "conditions": [{"evaluator": {"type": "gt", "params": [rule.above]}}],
    }
    expressions = [
        {
            "ref_id": model["refId"],
            "datasource_uid": EXPRESSIONS,
            "relative_time_range": {"from_": 0, "to": 0},
            "model": {**model, "datasource": {"type": EXPRESSIONS, "uid": EXPRESSIONS}},
        }
        for model in (last, threshold)
    ]
    return [{**step, "model": json.dumps(step["model"])} for step in (query, *expressions)]
