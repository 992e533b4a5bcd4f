"""InferenceOperator: the HyperPod Inference Operator (3.2 or later) as an EKS add-on, with the
add-ons it needs and the IAM roles its service accounts assume. Pass the HyperPod nodes in
`opts.depends_on`: the dependency add-ons need nodes to become ACTIVE."""

import json
from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from components.core.aws_account import AwsAccount
from components.core.options import NODE_ADDON_TIMEOUTS, inherited_depends_on
from components.operator.checks import resolved_operator_version
from components.operator.iam import (
    CONTROLLER,
    FSX_CSI_DRIVER,
    GATED_MODEL_POLICY,
    INFERENCE_ACCESS_POLICY,
    KEDA,
    LOAD_BALANCER_CONTROLLER,
    S3_CSI_DRIVER,
    execution_role_name,
    fsx_csi_policy,
    gated_model_subjects,
    irsa_trust,
    keda_policy,
    s3_csi_policy,
    subject,
    tls_bucket_key_policy,
)
from components.operator.load_balancer_policy import load_balancer_controller_policy
from components.operator.spec import OperatorSpec
from components.operator.values import addon_configuration
from components.operator.versions import ADDON_NAME, OPERATOR_VERSION_TAG

# The add-on can take over 40 minutes to become ACTIVE on p5 nodes.
ADDON_TIMEOUTS = pulumi.CustomTimeouts(create="90m", update="90m", delete="40m")


@dataclass(frozen=True)
class InferenceOperatorArgs:
    spec: OperatorSpec
    # What the roles are named after.
    cluster_name: str
    # The EKS cluster the add-ons go into, by name: pass the cluster resource's output, so
    # that a replaced cluster replaces the add-ons (their clusterName forces new ones).
    eks_cluster: pulumi.Input[str]
    account: AwsAccount
    oidc_provider_arn: pulumi.Input[str]
    # The OIDC issuer without https://, the prefix of the trust conditions' keys.
    oidc_issuer: pulumi.Input[str]
    hyperpod_cluster_arn: pulumi.Input[str]
    tls_bucket: pulumi.Input[str]
    # The buckets model pods mount: the S3 CSI driver may read these and nothing else.
    model_buckets: Sequence[str]
    # Where endpoints run: only their model pods may assume the gated-model role.
    endpoint_namespaces: Sequence[str]
    # The buckets' customer managed key (SSE-KMS), if any.
    kms_key_arn: str | None = None
    # The AMP workspaces the endpoints' autoscaling queries: KEDA may query these alone.
    prometheus_workspace_arns: Sequence[pulumi.Input[str]] = ()


class InferenceOperator(pulumi.ComponentResource):
    def __init__(
        self, name: str, args: InferenceOperatorArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("hyperpod-dpd:operator:InferenceOperator", name, None, opts)
        self._name, self._args = name, args
        # Every role's policies: what uses a role must wait for them too.
        self._policies: list[pulumi.Resource] = []
        spec = args.spec
        self.operator_version = resolved_operator_version(spec)
        self.addon_version = spec.addon_version

        account, key = args.account, args.kms_key_arn
        execution = self._role(
            "execution",
            [subject(CONTROLLER)],
            managed=[INFERENCE_ACCESS_POLICY],
            inline=tls_bucket_key_policy(account, key) if key else None,
            role_name=execution_role_name(args.cluster_name),
            trusted_by_sagemaker=True,
        )
        load_balancer = self._role(
            "load-balancer-controller",
            [subject(LOAD_BALANCER_CONTROLLER)],
            inline=load_balancer_controller_policy(account.partition),
        )
        keda = self._role(
            "keda",
            [subject(KEDA)],
            inline=pulumi.Output.all(*args.prometheus_workspace_arns).apply(
                lambda arns: keda_policy(arns)
            ),
        )
        s3_csi = self._role(
            "s3-csi-driver",
            [subject(S3_CSI_DRIVER)],
            inline=s3_csi_policy(args.model_buckets, account, key),
        )
        fsx_csi = self._role("fsx-csi-driver", [subject(FSX_CSI_DRIVER)], inline=fsx_csi_policy())
        gated = (
            self._role(
                "gated-models",
                gated_model_subjects(args.endpoint_namespaces),
                managed=[GATED_MODEL_POLICY],
                trusted_by_sagemaker=True,
            )
            if spec.gated_models
            else None
        )

        service_account_roles = {
            "aws-mountpoint-s3-csi-driver": s3_csi,
            "aws-fsx-csi-driver": fsx_csi,
        }
        dependencies = [
            aws.eks.Addon(
                f"{name}-{addon}",
                cluster_name=args.eks_cluster,
                addon_name=addon,
                addon_version=version,
                service_account_role_arn=(
                    service_account_roles[addon].arn if addon in service_account_roles else None
                ),
                resolve_conflicts_on_create="OVERWRITE",
                resolve_conflicts_on_update="OVERWRITE",
                opts=pulumi.ResourceOptions(
                    parent=self,
                    depends_on=inherited_depends_on(opts) + self._policies,
                    custom_timeouts=NODE_ADDON_TIMEOUTS,
                ),
            )
            for addon, (_, version) in spec.dependency_versions.by_addon().items()
        ]

        configuration = pulumi.Output.all(
            execution.arn,
            args.tls_bucket,
            args.hyperpod_cluster_arn,
            load_balancer.arn,
            keda.arn,
            gated.arn if gated else None,
        ).apply(
            lambda v: json.dumps(
                addon_configuration(
                    execution_role_arn=v[0],
                    tls_bucket=v[1],
                    hyperpod_cluster_arn=v[2],
                    load_balancer_role_arn=v[3],
                    keda_role_arn=v[4],
                    gated_model_role_arn=v[5],
                )
            )
        )
        self.addon = aws.eks.Addon(
            name,
            cluster_name=args.eks_cluster,
            addon_name=ADDON_NAME,
            addon_version=spec.addon_version,
            configuration_values=configuration,
            resolve_conflicts_on_create="OVERWRITE",
            resolve_conflicts_on_update="OVERWRITE",
            tags={OPERATOR_VERSION_TAG: self.operator_version},
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=inherited_depends_on(opts) + dependencies + self._policies,
                custom_timeouts=ADDON_TIMEOUTS,
            ),
        )
        self.execution_role_arn = execution.arn
        self.tls_bucket = args.tls_bucket
        self.register_outputs(
            {
                "operatorVersion": self.operator_version,
                "addonVersion": self.addon_version,
                "executionRoleArn": self.execution_role_arn,
                "tlsCertificateBucket": self.tls_bucket,
            }
        )

    def _role(
        self,
        purpose: str,
        subjects: Sequence[str],
        *,
        managed: Sequence[str] = (),
        inline: pulumi.Input[dict] | None = None,
        role_name: str | None = None,
        trusted_by_sagemaker: bool = False,
    ) -> aws.iam.Role:
        args = self._args
        child = pulumi.ResourceOptions(parent=self)
        trust = pulumi.Output.all(args.oidc_provider_arn, args.oidc_issuer).apply(
            lambda v: json.dumps(
                irsa_trust(
                    oidc_provider_arn=v[0],
                    issuer=v[1],
                    subjects=subjects,
                    sagemaker_account=args.account.id if trusted_by_sagemaker else None,
                )
            )
        )
        role = aws.iam.Role(
            f"{self._name}-{purpose}",
            name=role_name,
            assume_role_policy=trust,
            description=f"{purpose} of the HyperPod Inference Operator on {args.cluster_name}",
            opts=child,
        )
        for policy_arn in managed:
            self._policies.append(
                aws.iam.RolePolicyAttachment(
                    f"{self._name}-{purpose}-{policy_arn.rsplit('/', 1)[1]}",
                    role=role.name,
                    policy_arn=policy_arn,
                    opts=child,
                )
            )
        if inline is not None:
            self._policies.append(
                aws.iam.RolePolicy(
                    f"{self._name}-{purpose}",
                    name=purpose,
                    role=role.name,
                    policy=pulumi.Output.from_input(inline).apply(json.dumps),
                    opts=child,
                )
            )
        return role
