"""Rules that tie the stack's parts together: network, clusters, buckets and endpoints.

Each Finding's field is its setting's path under the project, e.g. `network.vpcCidr`.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from itertools import combinations

from components.cluster.endpoint_access import endpoint_access_problems
from components.cluster.instance_groups import check_instance_groups
from components.cluster.instance_types import DPD_INSTANCE_TYPES, is_accelerated
from components.cluster.karpenter import check_node_autoscaling
from components.cluster.kubernetes_versions import minor_version
from components.cluster.spec import HYPERPOD_NAME, ClusterSpec, InstanceGroupSpec
from components.core.findings import Finding, error, field_path, warning
from components.core.reuses import reuses
from components.endpoint.spec import DpdEndpointSpec
from components.network.plan import PlanError, node_capacity, plan_subnets
from components.network.spec import NetworkSpec, is_az_id
from components.operator.spec import OperatorSpec
from components.sizing.replicas import endpoint_replicas
from components.storage.spec import (
    LIFECYCLE_PREFIX,
    TLS_PREFIX,
    BucketNames,
    BucketsSpec,
    bucket_name_problem,
)


def nodes_by_az(groups: Sequence[InstanceGroupSpec]) -> dict[str, int]:
    counts: Counter[str] = Counter()
    for group in groups:
        counts[group.availability_zone_id] += group.instance_count
    return dict(counts)


def network_azs(network: NetworkSpec) -> list[str]:
    if network.existing is not None:
        return list(network.existing.private_subnet_ids)
    return network.availability_zone_ids


def _fixed_subnets(network: NetworkSpec, nodes: dict[str, int]) -> list[Finding]:
    found = []
    fixed = network.private_subnet_cidrs
    for az, cidr in fixed.items():
        field = field_path("network", "privateSubnetCidrs", az)
        if az not in network.availability_zone_ids:
            found.append(error("unknown-az", field, f"{az} is not in availabilityZoneIds"))
        elif not cidr.subnet_of(network.vpc_cidr):
            found.append(
                error("outside-vpc", field, f"{cidr} is not inside vpcCidr {network.vpc_cidr}")
            )
        elif node_capacity(cidr) < nodes.get(az, 0):
            found.append(
                error(
                    "subnet-too-small",
                    field,
                    f"{cidr} holds {node_capacity(cidr)} nodes, but the instance groups put "
                    f"{nodes[az]} in {az} (about 81 addresses a node, a /21 per 16 nodes)",
                )
            )
    for (az_a, a), (az_b, b) in combinations(fixed.items(), 2):
        if a.overlaps(b):
            field = field_path("network", "privateSubnetCidrs", az_b)
            found.append(error("overlapping-cidrs", field, f"{b} overlaps {a} of {az_a}"))
    return found


def _repeated_azs(network: NetworkSpec) -> list[Finding]:
    """Each AZ ID names one subnet pair, and each existing subnet lies in one AZ."""
    found = [
        error(
            "repeated-az",
            field_path("network", "availabilityZoneIds", i),
            f"{network.availability_zone_ids[i]} is already availabilityZoneIds[{first}]; list "
            "each AZ ID once",
        )
        for i, first in reuses(network.availability_zone_ids)
    ]
    if network.existing is not None:
        subnets = network.existing.private_subnet_ids
        azs = list(subnets)
        found += [
            error(
                "subnet-in-two-azs",
                field_path("network", "existing", "privateSubnetIds", azs[i]),
                f"{subnets[azs[i]]} is already the subnet of {azs[first]}; a subnet lies in "
                "one AZ, so each AZ needs a subnet of its own",
            )
            for i, first in reuses(list(subnets.values()))
        ]
    return found


def _new_network(network: NetworkSpec, groups: Sequence[InstanceGroupSpec]) -> list[Finding]:
    azs = network.availability_zone_ids
    if len(set(azs)) < 2:
        return [
            error(
                "too-few-azs",
                "network.availabilityZoneIds",
                f"{azs} is not allowed; EKS needs two or more distinct AZ IDs",
            )
        ]
    nodes = nodes_by_az(groups)
    found = _fixed_subnets(network, nodes)
    if not found:
        try:
            plan_subnets(network.vpc_cidr, azs, nodes, network.private_subnet_cidrs)
        except PlanError as full:
            found.append(error("vpc-too-small", "network.vpcCidr", str(full)))
    return found


def _existing_network(network: NetworkSpec) -> list[Finding]:
    assert network.existing is not None
    if len(network.existing.private_subnet_ids) >= 2:
        return []
    return [
        error(
            "too-few-subnets",
            "network.existing.privateSubnetIds",
            "EKS needs private subnets in two or more AZs",
        )
    ]


def _groups(cluster: ClusterSpec, network: NetworkSpec) -> list[Finding]:
    if not cluster.instance_groups:
        return [
            error(
                "no-groups",
                "cluster.instanceGroups",
                "is required: the GPU groups of the endpoints and a system group",
            )
        ]
    found = [
        error(f.code, f"cluster.instanceGroups{f.field}", f.message)
        for f in check_instance_groups(cluster.instance_groups)
    ]
    azs = network_azs(network)
    for i, group in enumerate(cluster.instance_groups):
        if group.availability_zone_id not in azs:
            found.append(
                error(
                    "group-outside-network",
                    field_path("cluster", "instanceGroups", i, "availabilityZoneId"),
                    f"{group.availability_zone_id} is not one of the network's AZs "
                    f"({', '.join(azs)})",
                )
            )
    return found


def _nodes_for(gpus: int, kind: str) -> int:
    return math.ceil(gpus / DPD_INSTANCE_TYPES[kind].gpus)


def _gpu_nodes(endpoint: DpdEndpointSpec) -> int:
    gpus = sum(role.replicas * role.gpus for role in (endpoint.prefill, endpoint.decode))
    return _nodes_for(gpus, endpoint.instance_type)


def _topology_az(endpoint: DpdEndpointSpec) -> str | None:
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
    nodes: int
    group: int | None

    def raise_key(self) -> str:
        if self.group is None:
            return "cluster.instanceGroups"
        return field_path("cluster", "instanceGroups", self.group, "instanceCount")


def _az_nodes(cluster: ClusterSpec, kind: str, az: str | None) -> _AzNodes:
    """The nodes of `kind` in `az`, or in the AZ that has the most when `az` is None."""
    per_az: dict[str, _AzNodes] = {}
    for i, group in enumerate(cluster.instance_groups):
        if group.instance_type != kind:
            continue
        held = per_az.get(group.availability_zone_id)
        first = held.group if held else i
        nodes = (held.nodes if held else 0) + group.instance_count
        per_az[group.availability_zone_id] = _AzNodes(group.availability_zone_id, nodes, first)
    if az is not None:
        return per_az.get(az, _AzNodes(az, 0, None))
    return max(per_az.values(), key=lambda n: n.nodes, default=_AzNodes(None, 0, None))


def _in_one_az(
    cluster: ClusterSpec, i: int, endpoint: DpdEndpointSpec, needed: int, counts: str, code: str
) -> list[Finding]:
    """Prefill and decode share an AZ: the endpoint's `needed` nodes must be in one."""
    kind, pinned = endpoint.instance_type, _topology_az(endpoint)
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


def _capacity(cluster: ClusterSpec, endpoints: Sequence[DpdEndpointSpec]) -> list[Finding]:
    """Each endpoint fits the nodes of its type in one AZ (prefill and decode share an AZ),
    and the endpoints of a type fit its nodes together."""
    found = []
    demand: Counter[str] = Counter()
    for i, endpoint in enumerate(endpoints):
        needed = _gpu_nodes(endpoint)
        demand[endpoint.instance_type] += needed
        counts = (
            f"{endpoint.prefill.replicas} prefill x {endpoint.prefill.gpus} GPUs and "
            f"{endpoint.decode.replicas} decode x {endpoint.decode.gpus} GPUs"
        )
        found += _in_one_az(cluster, i, endpoint, needed, counts, "not-enough-nodes")
    if found:
        return found
    for kind, needed in demand.items():
        total = sum(g.instance_count for g in cluster.instance_groups if g.instance_type == kind)
        if total < needed:
            found.append(
                error(
                    "not-enough-nodes-total",
                    _az_nodes(cluster, kind, None).raise_key(),
                    f"the endpoints on {kind} need {needed} nodes together; the groups have "
                    f"{total}: raise an instanceCount of a {kind} group",
                )
            )
    return found


def _autoscaling_capacity(
    cluster: ClusterSpec, endpoints: Sequence[DpdEndpointSpec]
) -> list[Finding]:
    """Each autoscaling endpoint, both roles at maxReplicas, fits its type's nodes in one AZ;
    and the endpoints of a type, at their maxima, fit its nodes together (with node
    autoscaling, the groups' instanceCount is the most they hold)."""
    autoscaling = [
        (i, e) for i, e in enumerate(endpoints) if e.prefill.autoscaling or e.decode.autoscaling
    ]
    found = []
    for i, endpoint in autoscaling:
        most = endpoint_replicas(endpoint)
        counts = (
            f"its autoscaling maxima, {most.prefill.maximum} prefill x {most.prefill.gpus} "
            f"GPUs and {most.decode.maximum} decode x {most.decode.gpus} GPUs (or lower "
            "maxReplicas)"
        )
        needed = _nodes_for(most.max_gpus, endpoint.instance_type)
        found += _in_one_az(cluster, i, endpoint, needed, counts, "autoscaling-beyond-az")
    if found:
        return found
    for kind in sorted({e.instance_type for _, e in autoscaling}):
        nodes = sum(g.instance_count for g in cluster.instance_groups if g.instance_type == kind)
        held = nodes * DPD_INSTANCE_TYPES[kind].gpus
        claimed = sum(endpoint_replicas(e).max_gpus for e in endpoints if e.instance_type == kind)
        if claimed <= held:
            continue
        limit = ", its node-autoscaling maximum" if cluster.autoscaling.enabled else ""
        found.append(
            error(
                "autoscaling-beyond-cluster",
                _az_nodes(cluster, kind, None).raise_key(),
                f"the endpoints on {kind} claim up to {claimed} GPUs at their maxReplicas "
                f"(prefill max x GPUs + decode max x GPUs), but its groups hold {held} "
                f"({nodes} nodes x {DPD_INSTANCE_TYPES[kind].gpus}{limit}), so the cluster can "
                "never run them; raise an instanceCount of a group of that type, or lower "
                "the endpoints' maxReplicas",
            )
        )
    return found


def _topology_zones(network: NetworkSpec, endpoints: Sequence[DpdEndpointSpec]) -> list[Finding]:
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


def _bucket_names(spec: BucketsSpec, names: BucketNames) -> list[Finding]:
    # Configured names match the S3 shape already; those derived from cluster.name or the
    # stack name are checked here, against every S3 rule.
    found = [
        error(
            "bucket-name",
            field_path("buckets", role, "name"),
            f"{name!r} {problem}"
            if getattr(spec, role).name
            else f"the derived name {name!r} {problem}; set cluster.name to a short lowercase "
            "name, or set this bucket's name",
        )
        for role, name in asdict(names).items()
        if (problem := bucket_name_problem(name))
    ]
    roles = list(asdict(names).items())
    found += [
        error(
            "bucket-name-reused",
            field_path("buckets", roles[i][0], "name"),
            f"{roles[i][1]!r} is already the {roles[first][0]} bucket's name; each bucket needs "
            "its own (S3 names are global, and each holds different access rules)",
        )
        for i, first in reuses([name for _, name in roles])
    ]
    for role, prefix in (("lifecycle", LIFECYCLE_PREFIX), ("tls", TLS_PREFIX)):
        name = getattr(names, role)
        if not name.startswith(prefix):
            found.append(
                error(
                    "bucket-prefix",
                    field_path("buckets", role, "name"),
                    f"{name!r} is not allowed; it must start with {prefix!r}, the prefix the "
                    "AWS managed policy grants access to",
                )
            )
    if spec.model.existing and spec.model.name is None:
        found.append(
            error(
                "existing-bucket-unnamed",
                "buckets.model.name",
                "is required when buckets.model.existing is true",
            )
        )
    return found


def _tiered_storage(cluster: ClusterSpec, endpoints: Sequence[DpdEndpointSpec]) -> list[Finding]:
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
    cluster: ClusterSpec, endpoints: Sequence[DpdEndpointSpec], region: str | None
) -> list[Finding]:
    """A role's own node labels must be on some instance group of its instance type, or its
    pods never schedule."""
    found = []
    for i, endpoint in enumerate(endpoints):
        groups = [g for g in cluster.instance_groups if g.instance_type == endpoint.instance_type]
        offered = sorted({f"{k}={v}" for g in groups for k, v in g.labels.items()})
        for role in ("prefill", "decode"):
            for key, value in getattr(endpoint, role).node_selector.items():
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


# Taints that keep pods without a matching toleration off a node (NoExecute evicts them too).
HARD_TAINTS = ("NoSchedule", "NoExecute")


def _hard_taint(group: InstanceGroupSpec) -> tuple[int, str] | None:
    """The group's first taint that keeps untolerating pods off, with how it reads."""
    for j, taint in enumerate(group.taints):
        if taint.effect in HARD_TAINTS:
            value = f"={taint.value}" if taint.value else ""
            return j, f"{taint.key}{value}:{taint.effect}"
    return None


def _taints(cluster: ClusterSpec, endpoints: Sequence[DpdEndpointSpec]) -> list[Finding]:
    """An InferenceEndpointConfig has no tolerations (its CRD, operator 3.2 and 3.3, offers
    none), so a hard taint on every group of an endpoint's type strands its pods; and the
    operator and the add-ons need a group they tolerate."""
    found = []
    groups = list(enumerate(cluster.instance_groups))
    reported = set()
    for k, endpoint in enumerate(endpoints):
        of_type = [(i, g) for i, g in groups if g.instance_type == endpoint.instance_type]
        tainted = [(i, _hard_taint(g)) for i, g in of_type]
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
    if groups and all(_hard_taint(g) for _, g in groups):
        i, group = next(
            ((i, g) for i, g in groups if not is_accelerated(g.instance_type)), groups[0]
        )
        j, taint = _hard_taint(group)
        found.append(
            error(
                "taint-strands-system-pods",
                field_path("cluster", "instanceGroups", i, "taints", j),
                f"{taint}: with every group tainted, the inference operator, cert-manager and "
                "the other add-ons have no node to run on; leave the system group untainted",
            )
        )
    else:
        system = [(i, g) for i, g in groups if not is_accelerated(g.instance_type)]
        if system and all(_hard_taint(g) for _, g in system):
            i, group = system[0]
            j, taint = _hard_taint(group)
            found.append(
                warning(
                    "taint-moves-system-pods",
                    field_path("cluster", "instanceGroups", i, "taints", j),
                    f"{taint} keeps the inference operator and the add-ons off the CPU system "
                    "group, so they take pod slots on the GPU nodes instead",
                )
            )
    return found


def _operator_installed(cluster: ClusterSpec, operator: OperatorSpec | None) -> list[Finding]:
    if operator is None or operator.installed is None or cluster.existing is not None:
        return []
    return [
        error(
            "operator-installed-new-cluster",
            "operator.installed",
            "says an operator already runs in the cluster, but this stack creates the cluster "
            "(cluster.existing is unset), so nothing would ever install the operator or its "
            "CRD; remove operator.installed",
        )
    ]


# Labels every node carries, set by Kubernetes from the instance itself. HyperPod nodes carry
# the SageMaker instance type (`ml.p5.48xlarge`) and the region's zone names.
INSTANCE_TYPE_LABELS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")
ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")
REGION_LABELS = ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region")
# The five DPD types are x86 Linux instances (kubelet sets kubernetes.io/arch from GOARCH).
NODE_PLATFORM = {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux"}


def _well_known_selector(
    key: str, value: str, endpoint: DpdEndpointSpec, region: str | None
) -> str | None:
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
    if key in REGION_LABELS and region is not None and value != region:
        return f"{key}={value} is not the stack's region {region}, so its pods would never schedule"
    if key in ZONE_LABELS and region is not None and not value.startswith(f"{region}"):
        return (
            f"{key}={value} is not a zone of {region}, the stack's region, so its pods would "
            "never schedule"
        )
    return None


def _cluster_name(name: str) -> list[Finding]:
    if re.fullmatch(HYPERPOD_NAME, name):
        return []
    return [
        error(
            "cluster-name",
            "cluster.name",
            f"the derived name {name!r} breaks {HYPERPOD_NAME}; set one",
        )
    ]


def _kube_proxy(cluster: ClusterSpec) -> list[Finding]:
    """EKS publishes kube-proxy add-on builds per Kubernetes version, each of that minor
    (EKS User Guide, "Manage kube-proxy"): another minor's build is refused on this cluster."""
    pinned = cluster.addon_versions.kube_proxy
    if pinned is None or minor_version(pinned) == cluster.kubernetes_version:
        return []
    return [
        error(
            "kube-proxy-minor",
            "cluster.addonVersions.kubeProxy",
            f"{pinned} is kube-proxy {minor_version(pinned)}, but the cluster runs Kubernetes "
            f"{cluster.kubernetes_version}; pin a v{cluster.kubernetes_version}.x-eksbuild.N "
            "build, or leave it unset for EKS's default",
        )
    ]


def _endpoint_access(cluster: ClusterSpec) -> list[Finding]:
    """An adopted cluster keeps the endpoint it has: this stack does not set it."""
    if cluster.existing is not None:
        return []
    access = cluster.endpoint_access
    return [
        error("endpoint-access", "cluster.endpointAccess", problem)
        for problem in endpoint_access_problems(
            public=access.public, public_cidrs=access.public_cidrs, private=access.private
        )
    ]


# What still applies to a cluster this stack adopts: its name (which names the buckets) and
# autoscaling, which check_node_autoscaling refuses with its own reason.
_KEPT_WITH_EXISTING = {"existing", "name", "autoscaling"}


def _unused_with_existing(cluster: ClusterSpec, network: NetworkSpec | None) -> list[Finding]:
    """Settings that build a cluster, written beside `cluster.existing`: the stack would drop
    them without a word, so they are refused rather than silently ignored."""
    unused = [
        f"cluster.{ClusterSpec.model_fields[name].alias or name}"
        for name in sorted(cluster.model_fields_set - _KEPT_WITH_EXISTING)
    ]
    unused += ["network"] * (network is not None)
    return [
        error(
            "unused-with-existing",
            key,
            "applies to a cluster this stack builds, but cluster.existing adopts one, which "
            "keeps its own; remove it, or remove cluster.existing to build the cluster",
        )
        for key in unused
    ]


def check_stack(
    *,
    cluster_name: str,
    network: NetworkSpec | None,
    cluster: ClusterSpec,
    buckets: BucketsSpec,
    bucket_names: BucketNames,
    endpoints: Sequence[DpdEndpointSpec],
    operator: OperatorSpec | None = None,
    region: str | None = None,
) -> list[Finding]:
    found = (
        _cluster_name(cluster_name)
        + _bucket_names(buckets, bucket_names)
        + _endpoint_access(cluster)
        + check_node_autoscaling(cluster)
        + _operator_installed(cluster, operator)
    )
    if cluster.existing is not None:
        return found + _unused_with_existing(cluster, network)
    found += _tiered_storage(cluster, endpoints) + _node_selectors(cluster, endpoints, region)
    found += _kube_proxy(cluster) + _taints(cluster, endpoints)
    if network is None:
        return [
            *found,
            error("no-network", "network", "is required unless cluster.existing names a cluster"),
        ]
    found += _repeated_azs(network)
    if network.existing is not None:
        found += _existing_network(network)
    else:
        found += _new_network(network, cluster.instance_groups)
    zones = _topology_zones(network, endpoints)
    capacity = [] if zones else _capacity(cluster, endpoints)
    if not zones and not capacity:
        capacity = _autoscaling_capacity(cluster, endpoints)
    return found + _groups(cluster, network) + zones + capacity
