"""The IAM documents of the HyperPod execution role, which every cluster node runs as."""

from collections.abc import Sequence

from components.core.aws_account import AwsAccount
from components.core.iam_statement import Statement, policy_document
from components.core.kms_access import kms_statement
from components.core.service_trust import SAGEMAKER, service_trust_statement

INSTANCE_ROLE_POLICY = "arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy"

# These EC2 and FSx actions support no resource-level permissions. The VPC CNI, which runs as
# this node role (no IRSA), needs DescribeInstances, DescribeTags and DescribeInstanceTypes
# (hyperpod-eks-tf's and sagemaker-hyperpod-cluster-setup's execution roles grant them).
_DESCRIBE = [
    "ec2:DescribeDhcpOptions",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeInstances",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeSubnets",
    "ec2:DescribeTags",
    "ec2:DescribeVpcs",
    "fsx:DescribeFileSystems",
]
# Actions on an existing interface, confined to the stack's VPC and subnets by the keys ec2:Vpc
# and ec2:Subnet (Service Authorization Reference). Attach, Detach and Modify are authorized on
# the instance too, which has neither: hence ArnEqualsIfExists, which every interface satisfies.
_EXISTING_INTERFACE = [
    "ec2:AssignPrivateIpAddresses",
    "ec2:AttachNetworkInterface",
    "ec2:CreateNetworkInterfacePermission",
    "ec2:DeleteNetworkInterface",
    "ec2:DeleteNetworkInterfacePermission",
    "ec2:DetachNetworkInterface",
    "ec2:ModifyNetworkInterfaceAttribute",
    "ec2:UnassignPrivateIpAddresses",
]
_ECR_PULL = ["ecr:BatchCheckLayerAvailability", "ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer"]


def execution_trust(account_id: str) -> dict:
    """SageMaker, on behalf of this account. The cluster's ARN carries an ID SageMaker assigns
    at creation, after the role must exist, so no aws:SourceArn can name it."""
    return {
        "Version": "2012-10-17",
        "Statement": [service_trust_statement(SAGEMAKER, account_id=account_id)],
    }


def execution_policy(
    account: AwsAccount,
    *,
    eks_cluster_arn: str,
    vpc_id: str,
    subnet_ids: Sequence[str],
    security_group_id: str,
    lifecycle_bucket: str | None,
    kms_key_arn: str | None = None,
) -> dict:
    """What nodes need beyond AmazonSageMakerClusterInstanceRolePolicy, scoped to known ARNs."""
    subnets = [account.arn("ec2", f"subnet/{subnet}") for subnet in subnet_ids]
    in_stack_network = {
        "ArnEqualsIfExists": {"ec2:Vpc": account.arn("ec2", f"vpc/{vpc_id}"), "ec2:Subnet": subnets}
    }
    interfaces = account.arn("ec2", "network-interface/*")
    group = account.arn("ec2", f"security-group/{security_group_id}")
    statements = [
        Statement(_DESCRIBE, sid="Describe"),
        # A new interface has no VPC or subnet yet: the subnets and the group it goes in are
        # named by ARN instead.
        Statement(
            "ec2:CreateNetworkInterface",
            [interfaces, group, *subnets],
            sid="CreateNetworkInterfaces",
        ),
        # Changing an interface's groups is authorized on the new group too.
        Statement(
            _EXISTING_INTERFACE,
            [interfaces, account.arn("ec2", "instance/*"), group],
            in_stack_network,
            sid="NetworkInterfaces",
        ),
        # The VPC CNI tags interfaces at creation and, later, ones found missing its tags
        # (aws/amazon-vpc-cni-k8s, pkg/awsutils/awsutils.go, TagENI), so an ec2:CreateAction
        # condition would break the second: held to the stack's VPC and subnets instead.
        Statement("ec2:CreateTags", interfaces, in_stack_network, sid="TagNetworkInterfaces"),
        # The token is account-wide; images come from AWS-owned registries in other accounts.
        Statement("ecr:GetAuthorizationToken", sid="EcrToken"),
        Statement(_ECR_PULL, f"arn:{account.partition}:ecr:*:*:repository/*", sid="EcrPull"),
        Statement("eks-auth:AssumeRoleForPodIdentity", eks_cluster_arn, sid="PodIdentity"),
        Statement("cloudwatch:DescribeAlarms", account.arn("cloudwatch", "alarm:*"), sid="Alarms"),
    ]
    if lifecycle_bucket is not None:
        bucket = f"arn:{account.partition}:s3:::{lifecycle_bucket}"
        statements += [
            Statement("s3:ListBucket", bucket, sid="ListLifecycleScripts"),
            Statement("s3:GetObject", f"{bucket}/*", sid="ReadLifecycleScripts"),
        ]
    if kms_key_arn is not None:
        statements.append(kms_statement(kms_key_arn, region=account.region, writes=False))
    return policy_document(statements)


# The cluster role HyperPod's managed Karpenter assumes to add and remove nodes. Trust and
# permissions as AWS documents them ("Create an IAM role for HyperPod autoscaling with
# Karpenter", sagemaker-hyperpod-eks-autoscaling-iam), held to this account and region.
AUTOSCALER_TRUST = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Effect": "Allow",
            "Principal": {"Service": "hyperpod.sagemaker.amazonaws.com"},
            "Action": "sts:AssumeRole",
        }
    ],
}
_KMS_GRANT_OPERATIONS = [
    "CreateGrant",
    "Decrypt",
    "DescribeKey",
    "GenerateDataKeyWithoutPlaintext",
    "ReEncryptTo",
    "ReEncryptFrom",
    "RetireGrant",
]


def autoscaler_policy(account: AwsAccount) -> dict:
    keys = account.arn("kms", "key/*")
    via_sagemaker = {"StringLike": {"kms:ViaService": "sagemaker.*.amazonaws.com"}}
    return policy_document(
        [
            # The cluster's ARN exists only after the cluster, which needs this role first.
            Statement(
                ["sagemaker:BatchAddClusterNodes", "sagemaker:BatchDeleteClusterNodes"],
                account.arn("sagemaker", "cluster/*"),
                sid="ScaleClusterNodes",
            ),
            # AWS's page puts DescribeKey under the grant conditions too, but a DescribeKey
            # request carries no grant keys, so it gets the service condition alone.
            Statement(
                "kms:CreateGrant",
                keys,
                {
                    **via_sagemaker,
                    "Bool": {"kms:GrantIsForAWSResource": "true"},
                    "ForAllValues:StringEquals": {"kms:GrantOperations": _KMS_GRANT_OPERATIONS},
                },
                sid="GrantsForNodeVolumes",
            ),
            Statement("kms:DescribeKey", keys, via_sagemaker, sid="DescribeNodeVolumeKeys"),
        ]
    )
