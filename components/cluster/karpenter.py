"""HyperPod's managed Karpenter: which groups it scales, what it refuses, and the objects it reads.

From AWS's "Autoscaling on SageMaker HyperPod EKS" pages: the cluster needs continuous node
provisioning, node recovery and `AutoScaling{Mode: Enable, AutoScalerType: Karpenter}`; Karpenter
reads a `HyperpodNodeClass` (at most 10 groups) and a `NodePool`, which HyperPod does not
install; a scaled group starts at 0 nodes; deep health checks and training plans are unsupported.
Each GPU group gets its own node class and pool, the pool's GPU limit at its `instanceCount`.

The node class is Ready only once the cluster's `AutoScaling.Status` is InService (awslabs
ai-on-sagemaker-hyperpod, "NodePool & Disruption"), which CloudControl does not report: so it
carries `pulumi.com/waitFor: condition=Ready` and the node pool waits for it.

Karpenter's default disruption removes a freed node at once and repacks serving pods; p5-class
capacity is often short and a moved DPD pod reloads its model, so a node is removed only when
empty, after `cluster.autoscaling.consolidateAfter` (an hour by default: longer than KEDA's 300 s
scale-down cooldown, shorter than a night).
"""

import re
from collections.abc import Sequence

from components.cluster.instance_groups import is_gpu_group
from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.cluster.spec import ClusterSpec, InstanceGroupSpec
from components.core.findings import Finding, error, field_path

NODE_CLASS_API_VERSION = "karpenter.sagemaker.amazonaws.com/v1"
NODE_CLASS_KIND = "HyperpodNodeClass"
NODE_POOL_API_VERSION = "karpenter.sh/v1"
NODE_POOL_KIND = "NodePool"
GPU_RESOURCE = "nvidia.com/gpu"
# The object names Kubernetes takes for the node pool and class, which carry the group's name:
# a DNS subdomain (RFC 1123), within HyperPod's group name shape (no dots, at most 63).
NODE_POOL_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
# pulumi-kubernetes waits for this before it counts the node class created.
WAIT_FOR_READY = {"pulumi.com/waitFor": "condition=Ready"}


def autoscaled(cluster: ClusterSpec, group: InstanceGroupSpec) -> bool:
    """Karpenter scales the GPU groups; the system group keeps its fixed count."""
    return cluster.autoscaling.enabled and is_gpu_group(group)


def node_class(group: InstanceGroupSpec) -> dict:
    return {
        "apiVersion": NODE_CLASS_API_VERSION,
        "kind": NODE_CLASS_KIND,
        "metadata": {"name": group.name, "annotations": WAIT_FOR_READY},
        "spec": {"instanceGroups": [group.name]},
    }


def node_pool(group: InstanceGroupSpec, consolidate_after: str) -> dict:
    gpus = group.instance_count * GPU_INSTANCE_TYPES[group.instance_type].gpus
    return {
        "apiVersion": NODE_POOL_API_VERSION,
        "kind": NODE_POOL_KIND,
        "metadata": {"name": group.name},
        "spec": {
            "template": {
                "spec": {
                    "nodeClassRef": {
                        "group": NODE_CLASS_API_VERSION.split("/", 1)[0],
                        "kind": NODE_CLASS_KIND,
                        "name": group.name,
                    },
                    # GPU nodes leave when Karpenter consolidates them, not on a timer.
                    "expireAfter": "Never",
                    "requirements": [
                        {"key": "node.kubernetes.io/instance-type", "operator": "Exists"}
                    ],
                }
            },
            "limits": {GPU_RESOURCE: str(gpus)},
            "disruption": {
                "consolidationPolicy": "WhenEmpty",
                "consolidateAfter": consolidate_after,
            },
        },
    }


def check_node_autoscaling(cluster: ClusterSpec) -> list[Finding]:
    """Fields are paths under the project (`cluster.instanceGroups[0].minInstanceCount`)."""
    found = []
    for i, group in enumerate(cluster.instance_groups):
        if group.min_instance_count is not None and group.min_instance_count > group.instance_count:
            found.append(
                error(
                    "min-above-count",
                    field_path("cluster", "instanceGroups", i, "minInstanceCount"),
                    f"{group.min_instance_count} is above instanceCount {group.instance_count}; "
                    "HyperPod needs minInstanceCount <= instanceCount",
                )
            )
    if not cluster.autoscaling.enabled:
        return found
    if cluster.existing is not None:
        return [
            *found,
            error(
                "autoscaling-existing-cluster",
                "cluster.autoscaling.enabled",
                "turns on the HyperPod cluster's autoscaling, which this stack does not manage "
                "with cluster.existing; enable it on that cluster instead",
            ),
        ]
    for i, group in enumerate(cluster.instance_groups):
        if not autoscaled(cluster, group):
            continue
        path = ("cluster", "instanceGroups", i)
        if not NODE_POOL_NAME.match(group.name):
            found.append(
                error(
                    "group-name-not-a-node-pool-name",
                    field_path(*path, "name"),
                    f"{group.name!r} names this group's Karpenter NodePool and HyperpodNodeClass, "
                    "and Kubernetes takes only lowercase letters, digits and '-' in object names "
                    f"(RFC 1123); rename the group, e.g. {group.name.lower()!r}",
                )
            )
        if group.min_instance_count:
            found.append(
                error(
                    "autoscaled-min",
                    field_path(*path, "minInstanceCount"),
                    f"{group.min_instance_count} is not allowed with cluster.autoscaling: "
                    "Karpenter starts GPU groups at 0 nodes and adds them as pods need them",
                )
            )
        if group.deep_health_checks:
            found.append(
                error(
                    "autoscaled-deep-health-checks",
                    field_path(*path, "deepHealthChecks"),
                    "is not supported with cluster.autoscaling: pods would wait 60-90 minutes "
                    "for each new node's checks; leave it unset",
                )
            )
        if group.training_plan_arn:
            found.append(
                error(
                    "autoscaled-training-plan",
                    field_path(*path, "trainingPlanArn"),
                    "is not supported with cluster.autoscaling, which provisions on-demand",
                )
            )
    if not autoscaled_groups(cluster):
        found.append(
            error(
                "autoscaling-no-gpu-group",
                "cluster.autoscaling.enabled",
                "has no GPU instance group to scale",
            )
        )
    return found


def autoscaled_groups(cluster: ClusterSpec) -> Sequence[InstanceGroupSpec]:
    return [g for g in cluster.instance_groups if autoscaled(cluster, g)]
