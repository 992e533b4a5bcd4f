"""What observability watches of each endpoint: its roles' replica ranges, the series their
autoscaling reads, and its SLO. The dashboard and alerts tell prefill from decode by pod names
(series.py); an aggregated endpoint's pods have none a public source gives, so it is left out."""

from collections.abc import Sequence

from components.endpoint.autoscaling import METRIC_SERIES, metric_of
from components.endpoint.manifest import object_name
from components.endpoint.spec import EndpointSpec
from components.observability.watched import WatchedEndpoint, WatchedRole


def watched_endpoints(
    endpoints: Sequence[EndpointSpec], generations: Sequence[str]
) -> list[WatchedEndpoint]:
    """`generations`: each endpoint's, whose name its pods carry."""
    watched = []
    for endpoint, generation in zip(endpoints, generations, strict=True):
        if endpoint.aggregated:
            continue
        roles = []
        for name, (role, _) in endpoint.roles().items():
            scaling = role.autoscaling
            metric = metric_of(scaling, name) if scaling is not None else None
            roles.append(
                WatchedRole(
                    role=name,
                    min_replicas=role.min_replicas,
                    max_replicas=scaling.max_replicas if scaling else role.replicas,
                    autoscaling_series=METRIC_SERIES.get(metric) if metric else None,
                )
            )
        slo = endpoint.workload.slo if endpoint.workload else None
        watched.append(
            WatchedEndpoint(
                name=endpoint.name,
                namespace=endpoint.namespace,
                pods_of=object_name(endpoint, generation),
                roles=tuple(roles),
                ttft_ms=slo.ttft_ms if slo else None,
                tpot_ms=slo.tpot_ms if slo else None,
            )
        )
    return watched
