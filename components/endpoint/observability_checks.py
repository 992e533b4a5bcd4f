"""Rules tying the endpoints to observability: where their metrics go, and what autoscaling
reads. They live with the endpoint, which reads observability, not the other way round.

Each Finding's field is its setting's path under the project (`endpoints[0].metrics.enabled`).
"""

from collections.abc import Sequence

from components.core.findings import Finding, error, field_path, warning
from components.endpoint.autoscaling import metric_of
from components.endpoint.spec import EndpointSpec
from components.observability.spec import ObservabilitySpec


def check_endpoint_observability(
    spec: ObservabilitySpec, endpoints: Sequence[EndpointSpec]
) -> list[Finding]:
    found = [
        warning(
            "autoscaling-without-metrics",
            field_path("endpoints", i, name, "autoscaling"),
            "reads the endpoint's metrics, but its metrics.enabled is false, so the operator "
            "does not expose them for collection and the trigger may find no series",
        )
        for i, endpoint in enumerate(endpoints)
        if not endpoint.metrics.enabled
        for name, (role, _) in endpoint.roles().items()
        # A CloudWatch trigger alone reads CloudWatch, not the endpoint's metrics.
        if role.autoscaling is not None and metric_of(role.autoscaling, name) is not None
    ]
    if spec.enabled:
        return found
    found += [
        error(
            "autoscaling-without-prometheus",
            field_path("endpoints", i, name, "autoscaling", "serverAddress"),
            "is required while observability is off: autoscaling queries Amazon Managed "
            "Prometheus; set observability.enabled: true or name a workspace here",
        )
        for i, endpoint in enumerate(endpoints)
        for name, (role, _) in endpoint.roles().items()
        if role.autoscaling is not None
        and role.autoscaling.server_address is None
        and metric_of(role.autoscaling, name) is not None
    ]
    return found + [
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
