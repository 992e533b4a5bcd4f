"""The DPD dashboard, built with Grafana's foundation SDK: one row per endpoint showing, per
role, requests, latency percentiles against the SLO, KV cache and GPU use, and replicas."""

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from grafana_foundation_sdk.builders import dashboard as builder
from grafana_foundation_sdk.builders import prometheus, timeseries
from grafana_foundation_sdk.builders.common import GraphThresholdsStyleConfig
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models.common import GraphTresholdsStyleMode
from grafana_foundation_sdk.models.dashboard import DataSourceRef, Threshold, ThresholdsMode

from components.observability import queries
from components.observability.watched import WatchedEndpoint

DASHBOARD_UID = "hyperpod-dpd"
PROMETHEUS_UID = "hyperpod-dpd-amp"
PROMETHEUS = DataSourceRef(type_val="prometheus", uid=PROMETHEUS_UID)
PANEL_WIDTH = 8
PANEL_HEIGHT = 8


@dataclass(frozen=True)
class Target:
    legend: str
    expr: str


@dataclass(frozen=True)
class PanelSpec:
    title: str
    unit: str
    targets: tuple[Target, ...]
    # A line drawn at this value, such as the SLO.
    threshold: float | None = None


def _per_role(
    endpoint: WatchedEndpoint, query: Callable[[str, str, str], str]
) -> tuple[Target, ...]:
    return tuple(
        Target(role.role, query(role.role, endpoint.pod_name_prefix, endpoint.namespace))
        for role in endpoint.roles
    )


def _of(aggregate: Callable[[str, str, str, str], str], series: str):
    return lambda role, name, namespace: aggregate(series, role, name, namespace)


def _seconds(ms: float | None) -> float | None:
    return None if ms is None else ms / 1000


def _replicas(endpoint: WatchedEndpoint) -> tuple[Target, ...]:
    """Each role's replicas, with its autoscaling range as two flat lines."""
    return tuple(
        target
        for role in endpoint.roles
        for target in (
            Target(
                role.role, queries.replicas(role.role, endpoint.pod_name_prefix, endpoint.namespace)
            ),
            Target(f"{role.role} min", queries.constant(role.min_replicas)),
            Target(f"{role.role} max", queries.constant(role.max_replicas)),
        )
    )


def endpoint_panels(endpoint: WatchedEndpoint) -> list[PanelSpec]:
    dpd_ttft = Target(
        "DPD request (prefill e2e + decode TTFT)",
        queries.ttft_p90(endpoint.pod_name_prefix, endpoint.namespace),
    )
    tpot = Target("decode", queries.tpot_p90(endpoint.pod_name_prefix, endpoint.namespace))
    return [
        PanelSpec(
            "Queued requests", "short", _per_role(endpoint, _of(queries.role_sum, queries.WAITING))
        ),
        PanelSpec(
            "Running requests", "short", _per_role(endpoint, _of(queries.role_sum, queries.RUNNING))
        ),
        PanelSpec(
            "Time to first token p90",
            "s",
            (dpd_ttft, *_per_role(endpoint, _of(queries.role_p90, queries.TTFT))),
            _seconds(endpoint.ttft_ms),
        ),
        PanelSpec("Time per output token p90", "s", (tpot,), _seconds(endpoint.tpot_ms)),
        PanelSpec(
            "End-to-end latency p90", "s", _per_role(endpoint, _of(queries.role_p90, queries.E2E))
        ),
        PanelSpec(
            "KV cache use (fullest pod)",
            "percentunit",
            _per_role(endpoint, _of(queries.role_max, queries.KV_CACHE_USE)),
        ),
        PanelSpec("GPU use", "percent", _per_role(endpoint, queries.gpu_use)),
        PanelSpec("Replicas against the autoscaling range", "short", _replicas(endpoint)),
    ]


def _panel(spec: PanelSpec) -> timeseries.Panel:
    panel = (
        timeseries.Panel()
        .title(spec.title)
        .unit(spec.unit)
        .datasource(PROMETHEUS)
        .height(PANEL_HEIGHT)
        .span(PANEL_WIDTH)
    )
    for ref, target in enumerate(spec.targets):
        panel = panel.with_target(
            prometheus.Dataquery()
            .expr(target.expr)
            .legend_format(target.legend)
            .ref_id(chr(ord("A") + ref))
        )
    if spec.threshold is not None:
        steps = [Threshold(None, "green"), Threshold(spec.threshold, "red")]
        panel = panel.thresholds(
            builder.ThresholdsConfig().mode(ThresholdsMode.ABSOLUTE).steps(steps)
        ).thresholds_style(GraphThresholdsStyleConfig().mode(GraphTresholdsStyleMode.LINE))
    return panel


def dpd_dashboard(endpoints: Sequence[WatchedEndpoint]) -> dict:
    board = (
        builder.Dashboard("HyperPod DPD endpoints")
        .uid(DASHBOARD_UID)
        .tags(["hyperpod", "dpd"])
        .refresh("1m")
        .time("now-3h", "now")
        .editable()
    )
    for endpoint in endpoints:
        board = board.with_row(builder.Row(f"{endpoint.name} ({endpoint.namespace})"))
        for spec in endpoint_panels(endpoint):
            board = board.with_panel(_panel(spec))
    return json.loads(JSONEncoder(sort_keys=True).encode(board.build()))
