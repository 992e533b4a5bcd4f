"""Whether the cluster holds an endpoint twice, as a creation-first replacement needs it to.

A change the operator cannot make in place gives the endpoint a new generation
(components/endpoint/generation.py), which Pulumi creates beside the old one and waits for
before deleting the old: for that while, both generations hold their GPUs. The endpoint's
pods are counted at their most (every role at maxReplicas) and onto nodes as the capacity
checks count them (endpoint_pods.py `nodes_to_hold`: each pod whole on one node, pods sharing
nodes). The room the type's nodes have beside every endpoint's pods is handed out in the
endpoints' order, so that swaps the program allows together also fit together; one that does
not fit falls back to deleting first, an outage, and the diff says so.

Both generations are counted on the endpoint's instance type as configured: the program sees
no deployed state, so when `instanceType` itself changes, the old generation, which runs on the
old type, is counted on the new one too, and a swap is asked one endpoint's worth of GPUs more
than it takes (the diff says so).

The GPUs are counted across the type's groups. Where those sit in several AZs, a new
generation that fits only in sum cannot share one AZ: its pods stay Pending, `pulumi up` stops
when the wait for it runs out, and the old generation goes on serving. On an existing cluster,
whose nodes are not the stack's, a swap is always tried, with the same fallback.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.cluster.spec import ClusterSpec
from components.endpoint.spec import EndpointSpec
from components.sizing.replicas import endpoint_replicas
from infra.endpoint_pods import Pods, nodes_to_hold, pods_at_maxima


@dataclass(frozen=True)
class EndpointSwap:
    # The endpoint, as `<namespace>/<name>`.
    endpoint: str
    instance_type: str
    # The endpoint's GPUs at its most; a swap holds them twice.
    gpus: int
    # The GPUs of that type the cluster's groups hold; None on an existing cluster.
    cluster_gpus: int | None
    # What every endpoint of that type claims at its most.
    claimed_gpus: int
    create_first: bool

    @property
    def gpus_during(self) -> int:
        return 2 * self.gpus


def endpoint_swaps(cluster: ClusterSpec, endpoints: Sequence[EndpointSpec]) -> list[EndpointSwap]:
    """One per endpoint, in order."""
    claimed: Counter[str] = Counter()
    # Every endpoint's pods of each type at their most, then the swaps allowed so far.
    pods: dict[str, Pods] = {}
    for endpoint in endpoints:
        claimed[endpoint.instance_type] += endpoint_replicas(endpoint).max_gpus
        pods.setdefault(endpoint.instance_type, Counter()).update(pods_at_maxima(endpoint))
    nodes: Counter[str] = Counter()
    for group in cluster.instance_groups:
        if group.instance_type in GPU_INSTANCE_TYPES:
            nodes[group.instance_type] += group.instance_count
    held = {kind: n * GPU_INSTANCE_TYPES[kind].gpus for kind, n in nodes.items()}
    swaps = []
    for endpoint in endpoints:
        kind, gpus = endpoint.instance_type, endpoint_replicas(endpoint).max_gpus
        existing = cluster.existing is not None
        both = pods[kind] + pods_at_maxima(endpoint)
        fits = existing or nodes_to_hold(both, GPU_INSTANCE_TYPES[kind].gpus) <= nodes[kind]
        if fits and not existing:
            pods[kind] = both
        swaps.append(
            EndpointSwap(
                endpoint=f"{endpoint.namespace}/{endpoint.name}",
                instance_type=kind,
                gpus=gpus,
                cluster_gpus=None if existing else held.get(kind, 0),
                claimed_gpus=claimed[kind],
                create_first=fits,
            )
        )
    return swaps
