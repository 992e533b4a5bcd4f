"""What an in-place update of the HyperPod cluster does to its nodes.

CloudFormation's schema of AWS::SageMaker::Cluster marks only its name, VPC configuration and
orchestrator create-only, so a change to an instance group is an update, which UpdateCluster
makes. AWS's "Updating SageMaker HyperPod cluster configuration" (EKS) lets it change a
group's instance type: nodes of the new type must come up for it, and the old ones go. A group
missing from the new configuration is deleted with its nodes (UpdateCluster's
InstanceGroupsToDelete). New nodes run the group's deep health checks before they take pods
(InstanceStress, InstanceConnectivity: DCGM level-4 diagnostics, EFA and NCCL tests; AWS's
"Deep health checks" page), which take hours on p5-class capacity (the stack gives HyperPod
updates 240 minutes).
"""

from typing import Any

HYPERPOD_TYPE = "aws-native:sagemaker:Cluster"

Resource = dict[str, Any]


def _groups(resource: Resource) -> dict[str, dict[str, Any]]:
    return {g["instanceGroupName"]: g for g in resource["inputs"].get("instanceGroups", [])}


def _nodes(group: dict[str, Any]) -> str:
    count = group["instanceCount"]
    # A group Karpenter scales is written with 0; its nodes are as many as pods need.
    return f"{count} {group['instanceType']}" if count else f"{group['instanceType']} (Karpenter's)"


def _arrival(group: dict[str, Any]) -> str:
    checks = group.get("onStartDeepHealthChecks")
    if checks:
        return (
            f"they run the deep health checks ({', '.join(checks)}) before they take pods, "
            "which takes hours on p5-class capacity"
        )
    return "they take pods once they have joined"


def replaced_types(base: Resource, head: Resource) -> set[str]:
    old, new = _groups(base), _groups(head)
    return {
        group["instanceType"]
        for name, group in old.items()
        if name not in new or new[name]["instanceType"] != group["instanceType"]
    }


def node_outages(base: Resource, head: Resource) -> list[str]:
    old, new = _groups(base), _groups(head)
    lines = []
    for name in sorted(old.keys() & new.keys()):
        before, after = old[name], new[name]
        if before["instanceType"] == after["instanceType"]:
            continue
        lines.append(
            f"HyperPod instance group `{name}`: instanceType {before['instanceType']} → "
            f"{after['instanceType']}, which UpdateCluster makes with new nodes: its "
            f"{_nodes(before)} nodes go and {_nodes(after)} come up; {_arrival(after)}, and "
            "the endpoints on the group answer nothing meanwhile"
        )
    for name in sorted(old.keys() - new.keys()):
        group = old[name]
        lines.append(
            f"HyperPod instance group `{name}`: removed, so its {_nodes(group)} nodes are "
            "deleted, and what runs on them stops"
        )
    return lines
