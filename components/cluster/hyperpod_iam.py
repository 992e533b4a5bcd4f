"""The IAM documents of the HyperPod execution role, which every cluster node runs as."""

from __future__ import annotations

from collections.abc import Sequence

from components.core.aws_account import AwsAccount

INSTANCE_ROLE_POLICY = "arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy"

SAGEMAKER_TRUST = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Effect": "Allow",
            "Principal": {"Service": "sagemaker.amazonaws.com"},
            "Action": "sts:AssumeRole",
        }
    ],
}

# These EC2 and FSx actions support no resource-level permissions.
_DESCRIBE = [
    "ec2:DescribeDhcpOptions",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeSubnets",
    "ec2:DescribeVpcs",
    "fsx:DescribeFileSystems",
]
_NETWORK_INTERFACE = [
    "ec2:AssignPrivateIpAddresses",
    "ec2:CreateNetworkInterface",
    "ec2:CreateNetworkInterfacePermission",
    "ec2:DeleteNetworkInterface",
    "ec2:DeleteNetworkInterfacePermission",
    "ec2:DetachNetworkInterface",
    "ec2:ModifyNetworkInterfaceAttribute",
    "ec2:UnassignPrivateIpAddresses",
]
_ECR_PULL = ["ecr:BatchCheckLayerAvailability", "ecr:BatchGetImage", "ecr:GetDownloadUrlForLayer"]


def execution_policy(
    account: AwsAccount,
    *,
    eks_cluster_arn: str,
    subnet_ids: Sequence[str],
    security_group_id: str,
    lifecycle_bucket: str | None,
) -> dict:
    """What nodes need beyond AmazonSageMakerClusterInstanceRolePolicy, scoped to known ARNs."""
    statements = [
        {"Sid": "Describe", "Effect": "Allow", "Action": _DESCRIBE, "Resource": "*"},
        {
            "Sid": "NetworkInterfaces",
            "Effect": "Allow",
            "Action": _NETWORK_INTERFACE,
            "Resource": [
                account.arn("ec2", "network-interface/*"),
                # Detaching an interface is authorized on the instance too.
                account.arn("ec2", "instance/*"),
                account.arn("ec2", f"security-group/{security_group_id}"),
                *(account.arn("ec2", f"subnet/{subnet}") for subnet in subnet_ids),
            ],
        },
        {
            "Sid": "TagNetworkInterfaces",
            "Effect": "Allow",
            "Action": "ec2:CreateTags",
            "Resource": account.arn("ec2", "network-interface/*"),
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
