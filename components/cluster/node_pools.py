"""KarpenterNodePools: the node class and node pool HyperPod's Karpenter scales each GPU group by.

Pass the cluster's Kubernetes provider in `opts.providers`, and the HyperPod cluster (whose
autoscaling brings Karpenter and its kinds) in `opts.depends_on`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from components.cluster.karpenter import node_class, node_pool
from components.cluster.spec import InstanceGroupSpec
from components.core.options import inherited_depends_on


@dataclass(frozen=True)
class KarpenterNodePoolsArgs:
    # The groups Karpenter scales.
    groups: Sequence[InstanceGroupSpec]


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
                opts=pulumi.ResourceOptions(parent=self, depends_on=depends_on),
            )
            pool = node_pool(group)
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
