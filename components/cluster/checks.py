"""The cluster's rules: its name, version, API endpoint, add-on pins, instance groups and node
autoscaling, and what a cluster this stack adopts would leave unused. Fields are paths under
the project (`cluster.name`)."""

import re
from datetime import date

from components.cluster.endpoint_access import endpoint_access_problems
from components.cluster.instance_groups import check_instance_groups, check_system_taints
from components.cluster.karpenter import check_node_autoscaling
from components.cluster.kubernetes_version_checks import check_new_cluster_version
from components.cluster.kubernetes_versions import minor_version
from components.cluster.spec import HYPERPOD_NAME, ClusterSpec
from components.core.findings import Finding, error, field_path
from components.network.spec import NetworkSpec, network_azs
from components.operator.spec import OperatorSpec


def _in_groups(found: list[Finding]) -> list[Finding]:
    return [Finding(f.level, f.code, f"cluster.instanceGroups{f.field}", f.message) for f in found]


def _groups(cluster: ClusterSpec, network: NetworkSpec) -> list[Finding]:
    if not cluster.instance_groups:
        return [
            error(
                "no-groups",
                "cluster.instanceGroups",
                "is required: the GPU groups of the endpoints and a system group",
            )
        ]
    found = _in_groups(check_instance_groups(cluster.instance_groups))
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


def check_cluster(
    cluster_name: str,
    cluster: ClusterSpec,
    network: NetworkSpec | None,
    operator: OperatorSpec,
    today: date,
) -> list[Finding]:
    """`today` decides the Kubernetes versions a new cluster may take (EKS's calendar)."""
    found = []
    if not re.fullmatch(HYPERPOD_NAME, cluster_name):
        found.append(
            error(
                "cluster-name",
                "cluster.name",
                f"the derived name {cluster_name!r} breaks {HYPERPOD_NAME}; set one",
            )
        )
    found += check_node_autoscaling(cluster)
    # An adopted cluster keeps its own endpoint access, add-ons, groups and operator.
    if cluster.existing is not None:
        return found + _unused_with_existing(cluster, network)
    support = cluster.upgrade_policy.support_type
    found += check_new_cluster_version(cluster.kubernetes_version, today, support)
    access = cluster.endpoint_access
    found += [
        error("endpoint-access", "cluster.endpointAccess", problem)
        for problem in endpoint_access_problems(
            public=access.public, public_cidrs=access.public_cidrs, private=access.private
        )
    ]
    if operator.installed is not None:
        found.append(
            error(
                "operator-installed-new-cluster",
                "operator.installed",
                "says an operator already runs in the cluster, but this stack creates the "
                "cluster (cluster.existing is unset), so nothing would ever install the operator "
                "or its CRD; remove operator.installed",
            )
        )
    found += _kube_proxy(cluster) + _in_groups(check_system_taints(cluster.instance_groups))
    return found if network is None else found + _groups(cluster, network)
