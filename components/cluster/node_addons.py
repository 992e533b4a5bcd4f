"""NodeAddons: the EKS add-ons that can only become ACTIVE once nodes run their pods.

EKS waits for an add-on to be ACTIVE, and a Deployment with no node to run on leaves it
DEGRADED, so these are created after the HyperPod cluster (pass it in `opts.depends_on`).
"""

from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from components.core.options import inherited_depends_on


@dataclass(frozen=True)
class NodeAddonsArgs:
    # The cluster resource's output, so that a replaced cluster replaces the add-ons (their
    # clusterName forces new ones).
    cluster_name: pulumi.Input[str]
    coredns_version: str | None = None


class NodeAddons(pulumi.ComponentResource):
    def __init__(
        self, name: str, args: NodeAddonsArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("hyperpod-dpd:eks:NodeAddons", name, None, opts)
        self.coredns = aws.eks.Addon(
            f"{name}-coredns",
            cluster_name=args.cluster_name,
            addon_name="coredns",
            addon_version=args.coredns_version,
            # EKS ran a self-managed coredns since the cluster was created; take it over.
            resolve_conflicts_on_create="OVERWRITE",
            opts=pulumi.ResourceOptions(parent=self, depends_on=inherited_depends_on(opts)),
        )
        self.register_outputs({})
