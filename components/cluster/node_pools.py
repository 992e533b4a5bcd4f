"""KarpenterNodePools: the node class and node pool HyperPod's Karpenter scales each GPU group
by. Pass the cluster's Kubernetes provider in `opts.providers`, and the HyperPod cluster (whose
autoscaling brings Karpenter's kinds) in `opts.depends_on`."""

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from components.cluster.karpenter import node_class, node_pool
from components.cluster.spec import InstanceGroupSpec
from components.core.options import inherited_depends_on

# How long the node class may take to become Ready after the cluster is InService.
READY_TIMEOUTS = pulumi.CustomTimeouts(create="60m", update="60m")


@dataclass(frozen=True)
class KarpenterNodePoolsArgs:
    # The groups Karpenter scales.
    groups: Sequence[InstanceGroupSpec]
    # How long an empty node stays (karpenter.py says why the default is an hour).
    consolidate_after: str = "1h"


class KarpenterNodePools(pulumi.ComponentResource):
    def __init__(
        self, name: str, args: KarpenterNodePoolsArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("hyperpod-dpd:hyperpod:KarpenterNodePools", name, None, opts)
        depends_on = inherited_depends_on(opts)
        self.node_pools = []
        for group in args.groups:
            manifest = node_class(group)
            node_class_resource = k8s.apiextensions.CustomResource(
                f"{name}-{group.name}-class",
                api_version=manifest["apiVersion"],
                kind=manifest["kind"],
                metadata=manifest["metadata"],
                spec=manifest["spec"],
                # Ready only once the cluster's AutoScaling.Status is InService.
                opts=pulumi.ResourceOptions(
                    parent=self, depends_on=depends_on, custom_timeouts=READY_TIMEOUTS
                ),
            )
            pool = node_pool(group, args.consolidate_after)
            self.node_pools.append(
                k8s.apiextensions.CustomResource(
                    f"{name}-{group.name}-pool",
                    api_version=pool["apiVersion"],
                    kind=pool["kind"],
                    metadata=pool["metadata"],
                    spec=pool["spec"],
                    opts=pulumi.ResourceOptions(
                        parent=self, depends_on=[*depends_on, node_class_resource]
                    ),
                )
            )
        self.register_outputs({"nodePools": [g.name for g in args.groups]})
