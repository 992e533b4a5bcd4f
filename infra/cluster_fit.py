"""Whether the endpoints and the cluster they run on fit: enough nodes and none idle, zones,
labels, taints and tiered storage. These rules read both, so they belong to the program; each
package's own rules live with it. Fields are paths under the project (`cluster.name`)."""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from components.cluster.instance_groups import hard_taint
from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.cluster.karpenter import autoscaled
from components.cluster.spec import ClusterSpec
from components.core.findings import Finding, error, field_path, warning
from components.endpoint.spec import EndpointSpec
from components.network.spec import NetworkSpec, is_az_id, network_azs
from components.pricing.cost import usd
from components.pricing.prices import PRICES, PriceTable, at_least
from infra.endpoint_pods import Pods, configured_pods, nodes_to_hold, pods_at_maxima, roles_text


def _nodes_for(pods: Pods, kind: str) -> int:
    return nodes_to_hold(pods, GPU_INSTANCE_TYPES[kind].gpus)


def _topology_az(endpoint: EndpointSpec) -> str | None:
    """The AZ ID an endpoint's pods are pinned to, if it names one by ID (a name is resolved
    against the account by the preflight)."""
    topology = endpoint.topology_spec
    zone = topology.availability_zone if topology else None
    return zone if zone is not None and is_az_id(zone) else None


@dataclass(frozen=True)
class _AzNodes:
    """The nodes of one instance type in one AZ, and the first group holding them: the
    instanceCount to raise when they are too few."""

    az: str | None
    nodes: int = 0
    group: int | None = None

    def raise_key(self) -> str:
        if self.group is None:
            return "cluster.instanceGroups"
        return field_path("cluster", "instanceGroups", self.group, "instanceCount")


def _az_nodes(cluster: ClusterSpec, kind: str, az: str | None) -> _AzNodes:
    """The nodes of `kind` in `az`, or in the AZ that has the most when `az` is None."""
    per_az: dict[str, _AzNodes] = {}
    for i, group in enumerate(cluster.instance_groups):
        if group.instance_type == kind:
            zone = group.availability_zone_id
            held = per_az.get(zone, _AzNodes(zone, 0, i))
            per_az[zone] = _AzNodes(zone, held.nodes + group.instance_count, held.group)
    if az is not None:
        return per_az.get(az, _AzNodes(az))
    return max(per_az.values(), key=lambda n: n.nodes, default=_AzNodes(None))


def _in_one_az(
    cluster: ClusterSpec, i: int, endpoint: EndpointSpec, needed: int, counts: str, code: str
) -> list[Finding]:
    """Prefill and decode share an AZ: the endpoint's `needed` nodes must be in one. An
    aggregated endpoint's pods share nothing, so any of its type's nodes will do."""
    kind, pinned = endpoint.instance_type, _topology_az(endpoint)
    if endpoint.aggregated:
        groups = [(j, g) for j, g in enumerate(cluster.instance_groups) if g.instance_type == kind]
        first = groups[0][0] if groups else None
        held = _AzNodes(None, sum(g.instance_count for _, g in groups), first)
        if needed <= held.nodes:
            return []
        where = (
            f"its groups have {held.nodes}: raise an instanceCount of a {kind} group by "
            f"{needed - held.nodes}"
            if held.group is not None
            else f"no instance group has {kind}: add one, or change the endpoint's instanceType"
        )
        return [
            error(
                code,
                held.raise_key(),
                f"endpoints[{i}] ({endpoint.name}) needs {needed} {kind} nodes for {counts}; "
                f"{where}",
            )
        ]
    held = _az_nodes(cluster, kind, pinned)
    if needed <= held.nodes:
        return []
    pin = f"endpoints[{i}].topologySpec.availabilityZone pins its pods to {pinned}"
    if held.group is None:
        where = (
            f"{pin}, where no instance group of {kind} is: add one there"
            if pinned
            else f"no instance group has {kind}: add one, or change the endpoint's instanceType"
        )
    else:
        has = (
            f"{pin}, which has {held.nodes}" if pinned else f"{held.az} has {held.nodes}, the most"
        )
        where = (
            f"{has} (cluster.instanceGroups[{held.group}]); raise its instanceCount by "
            f"{needed - held.nodes}"
        )
    return [
        error(
            code,
            held.raise_key(),
            f"endpoints[{i}] ({endpoint.name}) needs {needed} {kind} nodes in one AZ for "
            f"{counts} (prefill and decode share an AZ); {where}",
        )
    ]


def _capacity(cluster: ClusterSpec, endpoints: Sequence[EndpointSpec]) -> list[Finding]:
    """Each endpoint fits the nodes of its type in one AZ (prefill and decode share an AZ),
    and the endpoints of a type fit its nodes together."""
    found = []
    demand: dict[str, Pods] = {}
    for i, endpoint in enumerate(endpoints):
        pods = configured_pods(endpoint)
        demand.setdefault(endpoint.instance_type, Counter()).update(pods)
        counts = roles_text(endpoint)
        needed = _nodes_for(pods, endpoint.instance_type)
        found += _in_one_az(cluster, i, endpoint, needed, counts, "not-enough-nodes")
    if found:
        return found
    for kind, pods in demand.items():
        needed = _nodes_for(pods, kind)
        total = sum(g.instance_count for g in cluster.instance_groups if g.instance_type == kind)
        if total < needed:
            found.append(
                error(
                    "not-enough-nodes-total",
                    _az_nodes(cluster, kind, None).raise_key(),
                    f"the endpoints on {kind} need {needed} nodes together for their "
                    f"{_pods_text(pods)} (each pod on one node, pods sharing nodes); the groups "
                    f"have {total}: raise an instanceCount of a {kind} group",
                )
            )
    return found


def _pods_text(pods: Pods) -> str:
    return " and ".join(
        f"{n} pod{'s' * (n != 1)} of {g} GPU{'s' * (g != 1)}" for g, n in sorted(pods.items()) if n
    )


def _claimed_pods(endpoints: Sequence[EndpointSpec], kind: str) -> Pods:
    """The most pods the endpoints on `kind` can run: every role at its maxReplicas."""
    pods: Pods = Counter()
    for endpoint in endpoints:
        if endpoint.instance_type == kind:
            pods.update(pods_at_maxima(endpoint))
    return pods


def _autoscaling_capacity(cluster: ClusterSpec, endpoints: Sequence[EndpointSpec]) -> list[Finding]:
    """Each autoscaling endpoint, both roles at maxReplicas, fits its type's nodes in one AZ;
    and the endpoints of a type, at their maxima, fit its nodes together (with node
    autoscaling, the groups' instanceCount is the most they hold)."""
    autoscaling = [
        (i, e)
        for i, e in enumerate(endpoints)
        if any(role.autoscaling for role, _ in e.roles().values())
    ]
    found = []
    for i, endpoint in autoscaling:
        counts = (
            f"its autoscaling maxima, {roles_text(endpoint, at_maxima=True)} (or lower maxReplicas)"
        )
        needed = _nodes_for(pods_at_maxima(endpoint), endpoint.instance_type)
        found += _in_one_az(cluster, i, endpoint, needed, counts, "autoscaling-beyond-az")
    if found:
        return found
    for kind in sorted({e.instance_type for _, e in autoscaling}):
        nodes = sum(g.instance_count for g in cluster.instance_groups if g.instance_type == kind)
        claimed = _claimed_pods(endpoints, kind)
        needed = _nodes_for(claimed, kind)
        if needed <= nodes:
            continue
        gpus = sum(g * n for g, n in claimed.items())
        limit = ", their node-autoscaling maximum" if cluster.autoscaling.enabled else ""
        found.append(
            error(
                "autoscaling-beyond-cluster",
                _az_nodes(cluster, kind, None).raise_key(),
                f"the endpoints on {kind} claim up to {gpus} GPUs at their maxReplicas, "
                f"{_pods_text(claimed)}, which take {needed} nodes (each pod on one node), but "
                f"its groups hold {nodes} node{'s' * (nodes != 1)}{limit}, so the cluster can "
                "never run them; raise an "
                "instanceCount of a group of that type, or lower the endpoints' maxReplicas",
            )
        )
    return found


def _topology_zones(network: NetworkSpec, endpoints: Sequence[EndpointSpec]) -> list[Finding]:
    """An endpoint's AZ, given by ID, is one of the stack's (names are the preflight's)."""
    azs = network_azs(network)
    return [
        error(
            "topology-outside-network",
            field_path("endpoints", i, "topologySpec", "availabilityZone"),
            f"{zone} is not one of the stack's AZs ({', '.join(azs)}); its pods would never "
            "find a node",
        )
        for i, endpoint in enumerate(endpoints)
        if (zone := _topology_az(endpoint)) is not None and zone not in azs
    ]


def _tiered_storage(cluster: ClusterSpec, endpoints: Sequence[EndpointSpec]) -> list[Finding]:
    if cluster.tiered_storage is not False:
        return []
    return [
        error(
            "tiered-storage-disabled",
            field_path("endpoints", i, "kvCache", "l2CacheBackend"),
            "'tieredstorage' needs the HyperPod cluster's tiered storage, which "
            "cluster.tieredStorage false disables; unset it (it then follows the endpoints) or "
            "set it true",
        )
        for i, endpoint in enumerate(endpoints)
        if endpoint.kv_cache.l2_cache_backend == "tieredstorage"
    ]


# Label domains that Kubernetes, EKS and HyperPod set on nodes themselves.
SYSTEM_LABEL_DOMAINS = ("kubernetes.io", "k8s.io", "amazonaws.com")


def _system_label(key: str) -> bool:
    prefix = key.rpartition("/")[0]
    return any(prefix == d or prefix.endswith(f".{d}") for d in SYSTEM_LABEL_DOMAINS)


def _node_selectors(
    cluster: ClusterSpec, endpoints: Sequence[EndpointSpec], region: str
) -> list[Finding]:
    """A role's own node labels must be on some instance group of its instance type, or its
    pods never schedule."""
    found = []
    for i, endpoint in enumerate(endpoints):
        groups = [g for g in cluster.instance_groups if g.instance_type == endpoint.instance_type]
        offered = sorted({f"{k}={v}" for g in groups for k, v in g.labels.items()})
        for role, (settings, _) in endpoint.roles().items():
            for key, value in settings.node_selector.items():
                field = field_path("endpoints", i, role, "nodeSelector", key)
                if problem := _well_known_selector(key, value, endpoint, region):
                    found.append(error("selector-matches-no-node", field, problem))
                    continue
                if _system_label(key) or any(g.labels.get(key) == value for g in groups):
                    continue
                found.append(
                    error(
                        "selector-matches-no-group",
                        field_path("endpoints", i, role, "nodeSelector", key),
                        f"{key}={value} is on no instance group of {endpoint.instance_type}, "
                        f"so its pods would never schedule; their labels: "
                        f"{', '.join(offered) or 'none'} (set it in a group's labels)",
                    )
                )
    return found


# Labels every node carries, set by Kubernetes from the instance itself. HyperPod nodes carry
# the SageMaker instance type (`ml.p5.48xlarge`) and the region's zone names.
INSTANCE_TYPE_LABELS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")
ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")
REGION_LABELS = ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region")
# The GPU types are x86 Linux instances (kubelet sets kubernetes.io/arch from GOARCH).
NODE_PLATFORM = {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"}


def _well_known_selector(key: str, value: str, endpoint: EndpointSpec, region: str) -> str | None:
    """Why a selector on a label Kubernetes sets matches none of the endpoint's nodes."""
    if key in INSTANCE_TYPE_LABELS and value.startswith("ml.") and value != endpoint.instance_type:
        return (
            f"{key}={value} selects another instance type than the endpoint's "
            f"{endpoint.instance_type}, so its pods would never schedule; drop it"
        )
    if key in NODE_PLATFORM and value != NODE_PLATFORM[key]:
        return (
            f"{key}={value} matches none of the endpoint's {endpoint.instance_type} nodes, "
            f"which carry {key}={NODE_PLATFORM[key]}"
        )
    if key in REGION_LABELS and value != region:
        return f"{key}={value} is not the stack's region {region}, so its pods would never schedule"
    if key in ZONE_LABELS and not value.startswith(f"{region}"):
        return (
            f"{key}={value} is not a zone of {region}, the stack's region, so its pods would "
            "never schedule"
        )
    return None


def _taints(cluster: ClusterSpec, endpoints: Sequence[EndpointSpec]) -> list[Finding]:
    """An InferenceEndpointConfig has no tolerations (its CRD, operator 3.2 and 3.3, offers
    none), so a hard taint on every group of an endpoint's type strands its pods."""
    found = []
    groups = list(enumerate(cluster.instance_groups))
    reported = set()
    for k, endpoint in enumerate(endpoints):
        of_type = [(i, g) for i, g in groups if g.instance_type == endpoint.instance_type]
        tainted = [(i, hard_taint(g)) for i, g in of_type]
        if not of_type or any(taint is None for _, taint in tainted):
            continue
        i, (j, taint) = tainted[0]
        if i in reported:
            continue
        reported.add(i)
        found.append(
            error(
                "taint-strands-endpoint",
                field_path("cluster", "instanceGroups", i, "taints", j),
                f"{taint} keeps endpoints[{k}]'s pods off every {endpoint.instance_type} group, "
                "and an InferenceEndpointConfig sets no tolerations; use PreferNoSchedule, or "
                "leave one group of that type untainted",
            )
        )
    return found


def idle_gpu_nodes(
    cluster: ClusterSpec,
    endpoints: Sequence[EndpointSpec],
    region: str,
    prices: PriceTable = PRICES,
) -> list[Finding]:
    """GPU nodes beyond the endpoints' GPUs at maxReplicas, paid for by the hour. Not idle:
    groups Karpenter scales, groups on a training plan (paid anyway, so claims fill them first),
    and CPU groups."""
    found = []
    for kind, facts in GPU_INSTANCE_TYPES.items():
        groups = [
            (i, g)
            for i, g in enumerate(cluster.instance_groups)
            if g.instance_type == kind and not autoscaled(cluster, g)
        ]
        on_demand = [(i, g) for i, g in groups if g.training_plan_arn is None]
        if not on_demand:
            continue
        claimed = _claimed_pods(endpoints, kind)
        claimed_gpus = sum(g * n for g, n in claimed.items())
        claimed_nodes = nodes_to_hold(claimed, facts.gpus)
        planned = sum(g.instance_count for _, g in groups if g.training_plan_arn is not None)
        held = sum(g.instance_count for _, g in on_demand)
        idle = held - max(0, claimed_nodes - planned)
        if idle <= 0:
            continue
        # The group to lower: the largest of the type, so one change removes the most.
        i, group = max(on_demand, key=lambda pair: pair[1].instance_count)
        price = prices.price(kind, region)
        if price is None:
            cost = f"an unknown amount (the price table has no {kind} price in {region})"
        else:
            hourly = usd(idle * price.usd_per_hour)
            cost = f"{at_least(price.lower_bound)}{hourly}/h on demand in {region}"
            if price.lower_bound:
                cost += " (at EC2's rate for the same hardware; HyperPod's is higher)"
        found.append(
            warning(
                "idle-gpu-nodes",
                field_path("cluster", "instanceGroups", i, "instanceCount"),
                f"{idle} of the {held + planned} {kind} nodes are claimed by no endpoint and "
                f"would stand idle, costing {cost}: the endpoints on {kind} claim at most "
                f"{claimed_gpus} GPUs ({claimed_nodes} nodes of {facts.gpus}) at their "
                f"maxReplicas; lower {group.name}'s instanceCount from {group.instance_count} "
                f"to {group.instance_count - min(idle, group.instance_count)}, or give the "
                "endpoints more replicas",
            )
        )
    return found


def check_cluster_fit(
    cluster: ClusterSpec,
    network: NetworkSpec | None,
    endpoints: Sequence[EndpointSpec],
    region: str,
) -> list[Finding]:
    found = idle_gpu_nodes(cluster, endpoints, region)
    found += _tiered_storage(cluster, endpoints) + _node_selectors(cluster, endpoints, region)
    found += _taints(cluster, endpoints)
    if network is None:
        return found
    zones = _topology_zones(network, endpoints)
    capacity = [] if zones else _capacity(cluster, endpoints)
    if not zones and not capacity:
        capacity = _autoscaling_capacity(cluster, endpoints)
    return found + zones + capacity
