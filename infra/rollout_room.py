"""Whether the cluster has room for the way each endpoint takes a change (generation.py).

A roll: Kubernetes' default rolling update surges 25%, rounded up, so each role of fewer than
four pods needs room for one more, or the roll stalls. A swap (rollout newName) holds both
generations' GPUs at once, every role at maxReplicas; room is handed out in the endpoints'
order, and one that does not fit deletes first. On an existing cluster a swap is always tried.
"""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.cluster.spec import ClusterSpec
from components.endpoint.generation import drain_seconds
from components.endpoint.spec import EndpointSpec
from components.sizing.replicas import endpoint_replicas
from infra.endpoint_pods import Pods, nodes_to_hold, pods_at_maxima

# A role of this many pods rolls with none unavailable while its surge pod is Pending.
ROLLS_WITHOUT_ROOM = 4


@dataclass(frozen=True)
class EndpointRoom:
    # The endpoint, as `<namespace>/<name>`.
    endpoint: str
    instance_type: str
    # The endpoint's GPUs at its most; a swap holds them twice.
    gpus: int
    # The GPUs of that type the cluster's groups hold; None on an existing cluster.
    cluster_gpus: int | None
    # What every endpoint of that type claims at its most.
    claimed_gpus: int
    # Prefill and decode, which roll apart.
    dpd: bool
    # Rollout newName: a change the operator cannot take gets new names.
    renames: bool
    # Whether the cluster holds both generations at once; None on an existing cluster.
    holds_both: bool | None
    # Renamed, and the cluster holds both generations (or may): a swap with no outage.
    create_first: bool
    # Whether a roll's surge pods fit; None on an existing cluster.
    rolls: bool | None
    # How long the old generation serves after a swap.
    drain_seconds: int

    @property
    def gpus_during(self) -> int:
        return 2 * self.gpus


def rollout_room(cluster: ClusterSpec, endpoints: Sequence[EndpointSpec]) -> list[EndpointRoom]:
    """One per endpoint, in order."""
    claimed: Counter[str] = Counter()
    # Every endpoint's pods of each type at their most, then the swaps allowed so far.
    at_most: dict[str, Pods] = {}
    for endpoint in endpoints:
        claimed[endpoint.instance_type] += endpoint_replicas(endpoint).max_gpus
        at_most.setdefault(endpoint.instance_type, Counter()).update(pods_at_maxima(endpoint))
    pods = {kind: Counter(counted) for kind, counted in at_most.items()}
    nodes: Counter[str] = Counter()
    for group in cluster.instance_groups:
        if group.instance_type in GPU_INSTANCE_TYPES:
            nodes[group.instance_type] += group.instance_count
    held = {kind: n * GPU_INSTANCE_TYPES[kind].gpus for kind, n in nodes.items()}
    existing = cluster.existing is not None
    rooms = []
    for endpoint in endpoints:
        kind = endpoint.instance_type
        per_node = GPU_INSTANCE_TYPES[kind].gpus if kind in GPU_INSTANCE_TYPES else 1
        both = pods[kind] + pods_at_maxima(endpoint)
        holds_both = None if existing else nodes_to_hold(both, per_node) <= nodes[kind]
        fits = endpoint.renames and holds_both is not False
        if fits and not existing:
            pods[kind] = both
        # A roll of every role starts these pods before it stops one.
        roles = endpoint.roles().values()
        surge = Counter(role.gpus for role, _ in roles if role.replicas < ROLLS_WITHOUT_ROOM)
        rolling = at_most[kind] + surge
        rooms.append(
            EndpointRoom(
                endpoint=f"{endpoint.namespace}/{endpoint.name}",
                instance_type=kind,
                gpus=endpoint_replicas(endpoint).max_gpus,
                cluster_gpus=None if existing else held.get(kind, 0),
                claimed_gpus=claimed[kind],
                dpd=not endpoint.aggregated,
                renames=endpoint.renames,
                holds_both=holds_both,
                create_first=fits,
                rolls=None if existing else nodes_to_hold(rolling, per_node) <= nodes[kind],
                drain_seconds=drain_seconds(endpoint),
            )
        )
    return rooms
