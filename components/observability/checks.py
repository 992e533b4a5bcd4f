"""Rules tying observability to the endpoints: where their metrics go, and what autoscaling reads.

Each Finding's field is its setting's path under the project (`endpoints[0].metrics.enabled`).
"""

from __future__ import annotations

from collections.abc import Sequence

from components.core.findings import Finding, error, field_path, warning
from components.endpoint.spec import DpdEndpointSpec
from components.observability.spec import ObservabilitySpec
from components.observability.versions import MINIMUM_ADDON_VERSION
from components.operator.versions import at_least

# The regions AWS's reference Terraform offers Amazon Managed Grafana in (hyperpod-eks-tf
# `modules/observability/main.tf`, amg_allowed_regions).
GRAFANA_REGIONS = (
    "us-east-1",
    "us-east-2",
    "us-west-2",
    "ap-northeast-1",
    "ap-southeast-1",
    "ap-southeast-2",
    "eu-central-1",
    "eu-west-1",
    "eu-west-2",
)


def _autoscaling_targets(
    spec: ObservabilitySpec, endpoints: Sequence[DpdEndpointSpec]
) -> list[Finding]:
    if spec.enabled:
        return []
    return [
        error(
            "autoscaling-without-prometheus",
            field_path("endpoints", i, name, "autoscaling", "serverAddress"),
            "is required while observability is off: autoscaling queries Amazon Managed "
            "Prometheus; set observability.enabled: true or name a workspace here",
        )
        for i, endpoint in enumerate(endpoints)
        for name, (role, _) in endpoint.roles().items()
        if role.autoscaling is not None and role.autoscaling.server_address is None
    ]


def _unread_metrics(spec: ObservabilitySpec, endpoints: Sequence[DpdEndpointSpec]) -> list[Finding]:
    if spec.enabled:
        return []
    return [
        warning(
            "metrics-not-collected",
            field_path("endpoints", i, "metrics", "enabled"),
            "the operator exposes this endpoint's metrics on its pods, but with observability "
            "off nothing collects them: no collector and no Amazon Managed Prometheus "
            "workspace exist, so they stay on the pods and the dashboards stay empty; set "
            "observability.enabled: true to send them to a workspace",
        )
        for i, endpoint in enumerate(endpoints)
        if endpoint.metrics.enabled
    ]


def _grafana_region(spec: ObservabilitySpec, region: str) -> list[Finding]:
    if not spec.enabled or spec.grafana is None or region in GRAFANA_REGIONS:
        return []
    return [
        error(
            "grafana-region",
            "observability.grafana",
            f"Amazon Managed Grafana is not offered in {region}; it is in "
            f"{', '.join(GRAFANA_REGIONS)}",
        )
    ]


def _addon_floor(spec: ObservabilitySpec) -> list[Finding]:
    if not spec.enabled or at_least(spec.addon_version, MINIMUM_ADDON_VERSION):
        return []
    return [
        error(
            "observability-addon-below-floor",
            "observability.addonVersion",
            f"{spec.addon_version} is older than {MINIMUM_ADDON_VERSION}, the oldest release "
            "AWS documents and asks users to run",
        )
    ]


def _unscraped_autoscaling(endpoints: Sequence[DpdEndpointSpec]) -> list[Finding]:
    return [
        warning(
            "autoscaling-without-metrics",
            field_path("endpoints", i, name, "autoscaling"),
            "reads the endpoint's metrics, but its metrics.enabled is false, so the operator "
            "does not expose them for collection and the trigger may find no series",
        )
        for i, endpoint in enumerate(endpoints)
        if not endpoint.metrics.enabled
        for name, (role, _) in endpoint.roles().items()
        if role.autoscaling is not None
    ]


def check_observability(
    spec: ObservabilitySpec, endpoints: Sequence[DpdEndpointSpec], region: str
) -> list[Finding]:
    return (
        _addon_floor(spec)
        + _unscraped_autoscaling(endpoints)
        + _autoscaling_targets(spec, endpoints)
        + _unread_metrics(spec, endpoints)
        + _grafana_region(spec, region)
    )
