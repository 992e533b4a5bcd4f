"""HyperPodCluster: the SageMaker HyperPod cluster on EKS, with its nodes' execution role."""

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws
import pulumi_aws_native as aws_native

from components.cluster.hyperpod_iam import (
    AUTOSCALER_TRUST,
    INSTANCE_ROLE_POLICY,
    autoscaler_policy,
    execution_policy,
    execution_trust,
)
from components.cluster.instance_groups import instance_group_args, is_gpu_group
from components.cluster.lifecycle_scripts import LifecycleScripts
from components.cluster.spec import InstanceGroupSpec
from components.core.aws_account import AwsAccount
from components.core.options import inherited_depends_on

# Creating p5-class capacity and running the deep health checks takes hours, not minutes.
TIMEOUTS = pulumi.CustomTimeouts(create="240m", update="240m", delete="120m")


@dataclass(frozen=True)
class HyperPodClusterArgs:
    name: str
    account: AwsAccount
    eks_cluster_arn: pulumi.Input[str]
    vpc_id: pulumi.Input[str]
    security_group_id: pulumi.Input[str]
    # The private subnet of each AZ ID; every group is pinned to its AZ's.
    subnet_ids: Mapping[str, pulumi.Input[str]]
    instance_groups: Sequence[InstanceGroupSpec]
    lifecycle_scripts: LifecycleScripts
    lifecycle_bucket: str
    # The buckets' customer managed key, which nodes need to read the lifecycle scripts.
    kms_key_arn: str | None = None
    # Refuse `pulumi destroy` of the cluster (and so of every node serving on it).
    protect: bool = False
    # Hand the GPU groups to HyperPod's managed Karpenter (cluster.autoscaling).
    node_autoscaling: bool = False
    # The managed tier behind the `tieredstorage` L2 KV cache backend; None leaves it unset.
    tiered_storage: bool | None = None


def _tiered_storage(enabled: bool | None) -> dict | None:
    if enabled is None:
        return None
    mode = aws_native.sagemaker.ClusterTieredStorageConfigMode
    return {"mode": mode.ENABLE if enabled else mode.DISABLE}


class HyperPodCluster(pulumi.ComponentResource):
    """Pass what must exist before nodes join (the dependencies chart) in `opts.depends_on`."""

    def __init__(
        self, name: str, args: HyperPodClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("hyperpod-dpd:hyperpod:HyperPodCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        group_azs = sorted({g.availability_zone_id for g in args.instance_groups})
        group_subnets = [args.subnet_ids[az] for az in group_azs]

        role = aws.iam.Role(
            f"{name}-execution",
            assume_role_policy=json.dumps(execution_trust(args.account.id)),
            description=f"Nodes of the HyperPod cluster {args.name}",
            opts=child,
        )
        managed = aws.iam.RolePolicyAttachment(
            f"{name}-execution-instance",
            role=role.name,
            policy_arn=INSTANCE_ROLE_POLICY,
            opts=child,
        )
        scoped = aws.iam.RolePolicy(
            f"{name}-execution",
            name="hyperpod-nodes",
            role=role.name,
            policy=pulumi.Output.all(
                args.eks_cluster_arn, args.vpc_id, args.security_group_id, *group_subnets
            ).apply(
                lambda v: json.dumps(
                    execution_policy(
                        args.account,
                        eks_cluster_arn=v[0],
                        vpc_id=v[1],
                        security_group_id=v[2],
                        subnet_ids=v[3:],
                        lifecycle_bucket=args.lifecycle_bucket,
                        kms_key_arn=args.kms_key_arn,
                    )
                )
            ),
            opts=child,
        )

        scripts = args.lifecycle_scripts
        autoscaled = [args.node_autoscaling and is_gpu_group(g) for g in args.instance_groups]
        groups = [
            instance_group_args(
                group,
                execution_role=role.arn,
                subnet_id=args.subnet_ids[group.availability_zone_id],
                security_group_id=args.security_group_id,
                source_s3_uri=scripts.source_s3_uri,
                on_create=scripts.on_create,
                autoscaled=scaled,
            )
            for group, scaled in zip(args.instance_groups, autoscaled, strict=True)
        ]
        autoscaling: dict = {}
        depends_on = [managed, scoped, *scripts.objects, *inherited_depends_on(opts)]
        if args.node_autoscaling:
            autoscaler = aws.iam.Role(
                f"{name}-autoscaler",
                assume_role_policy=json.dumps(AUTOSCALER_TRUST),
                description=f"Karpenter of the HyperPod cluster {args.name}",
                opts=child,
            )
            depends_on.append(
                aws.iam.RolePolicy(
                    f"{name}-autoscaler",
                    name="scale-nodes",
                    role=autoscaler.name,
                    policy=json.dumps(autoscaler_policy(args.account)),
                    opts=child,
                )
            )
            autoscaling = {
                "auto_scaling": {"mode": "Enable", "auto_scaler_type": "Karpenter"},
                "cluster_role": autoscaler.arn,
            }
        self.cluster = aws_native.sagemaker.Cluster(
            name,
            cluster_name=args.name,
            orchestrator={"eks": {"cluster_arn": args.eks_cluster_arn}},
            vpc_config={"security_group_ids": [args.security_group_id], "subnets": group_subnets},
            node_recovery=aws_native.sagemaker.ClusterNodeRecovery.AUTOMATIC,
            node_provisioning_mode=aws_native.sagemaker.ClusterNodeProvisioningMode.CONTINUOUS,
            instance_groups=groups,
            tiered_storage_config=_tiered_storage(args.tiered_storage),
            **autoscaling,
            opts=pulumi.ResourceOptions(
                parent=self,
                protect=args.protect,
                # HyperPod cluster names are unique per account and region, and this one is
                # fixed: a replacement deletes the old cluster before creating the new one.
                delete_before_replace=True,
                # Nodes run the scripts and assume the role the moment they start.
                depends_on=depends_on,
                custom_timeouts=TIMEOUTS,
                # Karpenter changes the counts of the groups it scales; they are not drift. The
                # cluster's subnets are create-only and only a default, since every group names
                # its own (OverrideVpcConfig): a group in a new AZ must not rebuild the cluster.
                ignore_changes=[
                    "vpcConfig.subnets",
                    *(f"instanceGroups[{i}].instanceCount" for i, s in enumerate(autoscaled) if s),
                ],
            ),
        )
        self.arn = self.cluster.cluster_arn
        self.execution_role_arn = role.arn
        self.register_outputs({"arn": self.arn, "executionRoleArn": self.execution_role_arn})
