"""The IAM documents of the HyperPod execution role, which every cluster node runs as."""

from __future__ import annotations

from collections.abc import Sequence

from components.core.aws_account import AwsAccount
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
# Actions on an existing interface. The Service Authorization Reference (parliament's copy:
# iam_definition.json) gives each of them the condition keys ec2:Vpc and ec2:Subnet on the
# network-interface resource, so they are confined to the stack's VPC and the groups' subnets.
# Attach, Detach and Modify are authorized on the instance too, which has neither key: hence
# ArnEqualsIfExists, which every interface (always in a VPC and a subnet) must still satisfy.
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
    statements = [
        {"Sid": "Describe", "Effect": "Allow", "Action": _DESCRIBE, "Resource": "*"},
        # A new interface has no VPC or subnet yet: the subnets and the group it goes in are
        # named by ARN instead.
        {
            "Sid": "CreateNetworkInterfaces",
            "Effect": "Allow",
            "Action": "ec2:CreateNetworkInterface",
            "Resource": [
                account.arn("ec2", "network-interface/*"),
                account.arn("ec2", f"security-group/{security_group_id}"),
                *subnets,
            ],
        },
        {
            "Sid": "NetworkInterfaces",
            "Effect": "Allow",
            "Action": _EXISTING_INTERFACE,
            "Resource": [
                account.arn("ec2", "network-interface/*"),
                account.arn("ec2", "instance/*"),
                # Changing an interface's groups is authorized on the new group too.
                account.arn("ec2", f"security-group/{security_group_id}"),
            ],
            "Condition": in_stack_network,
        },
        # The VPC CNI tags interfaces at creation and, later, ones found missing its tags
        # (aws/amazon-vpc-cni-k8s, pkg/awsutils/awsutils.go, TagENI: a CreateTags call of its
        # own), so an ec2:CreateAction condition would break the second. Held instead to the
        # stack's VPC and subnets, like the statement above: CreateTags has both keys on an
        # existing interface, and at creation the CreateNetworkInterfaces statement decides.
        {
            "Sid": "TagNetworkInterfaces",
            "Effect": "Allow",
            "Action": "ec2:CreateTags",
            "Resource": account.arn("ec2", "network-interface/*"),
            "Condition": in_stack_network,
        },
        # The token is account-wide; images come from AWS-owned registries in other accounts.
        {
            "Sid": "EcrToken",
            "Effect": "Allow",
            "Action": "ecr:GetAuthorizationToken",
            "Resource": "*",
        },
        {
            "Sid": "EcrPull",
            "Effect": "Allow",
            "Action": _ECR_PULL,
            "Resource": f"arn:{account.partition}:ecr:*:*:repository/*",
        },
        {
            "Sid": "PodIdentity",
            "Effect": "Allow",
            "Action": "eks-auth:AssumeRoleForPodIdentity",
            "Resource": eks_cluster_arn,
        },
        {
            "Sid": "Alarms",
            "Effect": "Allow",
            "Action": "cloudwatch:DescribeAlarms",
            "Resource": account.arn("cloudwatch", "alarm:*"),
        },
    ]
    if lifecycle_bucket is not None:
        bucket = f"arn:{account.partition}:s3:::{lifecycle_bucket}"
        statements += [
            {
                "Sid": "ListLifecycleScripts",
                "Effect": "Allow",
                "Action": "s3:ListBucket",
                "Resource": bucket,
            },
            {
                "Sid": "ReadLifecycleScripts",
                "Effect": "Allow",
                "Action": "s3:GetObject",
                "Resource": f"{bucket}/*",
            },
        ]
    if kms_key_arn is not None:
        statements.append(
            kms_statement(kms_key_arn, region=account.region, writes=False).document()
        )
    return {"Version": "2012-10-17", "Statement": statements}


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
    """Adding and removing cluster nodes, and the KMS grants their encrypted volumes need."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "ScaleClusterNodes",
                "Effect": "Allow",
                "Action": ["sagemaker:BatchAddClusterNodes", "sagemaker:BatchDeleteClusterNodes"],
                # The cluster's ARN exists only after the cluster, which needs this role first.
                "Resource": account.arn("sagemaker", "cluster/*"),
            },
            # AWS's page puts DescribeKey under the grant conditions too, but a DescribeKey
            # request carries no grant keys, so it gets the service condition alone.
            {
                "Sid": "GrantsForNodeVolumes",
                "Effect": "Allow",
                "Action": "kms:CreateGrant",
                "Resource": account.arn("kms", "key/*"),
                "Condition": {
                    "StringLike": {"kms:ViaService": "sagemaker.*.amazonaws.com"},
                    "Bool": {"kms:GrantIsForAWSResource": "true"},
                    "ForAllValues:StringEquals": {"kms:GrantOperations": _KMS_GRANT_OPERATIONS},
                },
            },
            {
                "Sid": "DescribeNodeVolumeKeys",
                "Effect": "Allow",
                "Action": "kms:DescribeKey",
                "Resource": account.arn("kms", "key/*"),
                "Condition": {"StringLike": {"kms:ViaService": "sagemaker.*.amazonaws.com"}},
            },
        ],
    }
