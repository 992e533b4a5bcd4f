"""The IAM documents of the HyperPod Inference Operator and its helpers.

Each role is assumed by one Kubernetes service account through the cluster's OIDC provider
(IRSA), with the service account and audience named exactly in its trust policy. The add-on
moved these accounts from the Helm chart's: a trust policy written for the Helm install fails.
"""

from __future__ import annotations

from collections.abc import Sequence

from components.core.aws_account import AwsAccount

OPERATOR_NAMESPACE = "hyperpod-inference-system"
AUDIENCE = "sts.amazonaws.com"
# The operator's managed policy may pass only roles whose name starts with this.
EXECUTION_ROLE_PREFIX = "SageMakerHyperPodInference"
ROLE_NAME_MAX = 64

INFERENCE_ACCESS_POLICY = "arn:aws:iam::aws:policy/AmazonSageMakerHyperPodInferenceAccess"
FSX_ACCESS_POLICY = "arn:aws:iam::aws:policy/AmazonFSxFullAccess"
GATED_MODEL_POLICY = "arn:aws:iam::aws:policy/AmazonSageMakerHyperPodGatedModelAccess"

# The service accounts (namespace, name) each role is for.
CONTROLLER = (OPERATOR_NAMESPACE, "hyperpod-inference-controller-manager")
LOAD_BALANCER_CONTROLLER = (OPERATOR_NAMESPACE, "aws-load-balancer-controller")
KEDA = (OPERATOR_NAMESPACE, "keda-operator")
S3_CSI_DRIVER = ("kube-system", "s3-csi-driver-sa")
FSX_CSI_DRIVER = ("kube-system", "fsx-csi-controller-sa")
# Model pods in any namespace download gated JumpStart models as these accounts.
GATED_MODEL_SUBJECT = "system:serviceaccount:*:hyperpod-inference-service-account*"


def subject(service_account: tuple[str, str]) -> str:
    namespace, name = service_account
    return f"system:serviceaccount:{namespace}:{name}"


def irsa_trust(
    *, oidc_provider_arn: str, issuer: str, subject: str, also_sagemaker: bool = False
) -> dict:
    """Trust for one service account (a `*` in `subject` matches with StringLike)."""
    sub, aud = f"{issuer}:sub", f"{issuer}:aud"
    if "*" in subject:
        condition = {"StringLike": {sub: subject}, "StringEquals": {aud: AUDIENCE}}
    else:
        condition = {"StringEquals": {sub: subject, aud: AUDIENCE}}
    statements = [
        {
            "Effect": "Allow",
            "Principal": {"Federated": oidc_provider_arn},
            "Action": "sts:AssumeRoleWithWebIdentity",
            "Condition": condition,
        }
    ]
    if also_sagemaker:
        statements.append(
            {
                "Effect": "Allow",
                "Principal": {"Service": "sagemaker.amazonaws.com"},
                "Action": "sts:AssumeRole",
            }
        )
    return {"Version": "2012-10-17", "Statement": statements}


def execution_role_name(cluster_name: str) -> str:
    return f"{EXECUTION_ROLE_PREFIX}-{cluster_name}"[:ROLE_NAME_MAX]


def s3_csi_policy(bucket_names: Sequence[str], partition: str = "aws") -> dict:
    """Read-only access to the weights, for the Mountpoint CSI driver that mounts them."""
    buckets = [f"arn:{partition}:s3:::{name}" for name in sorted(set(bucket_names))]
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Sid": "ListWeights",
                "Effect": "Allow",
                "Action": "s3:ListBucket",
                "Resource": buckets,
            },
            {
                "Sid": "ReadWeights",
                "Effect": "Allow",
                "Action": "s3:GetObject",
                "Resource": [f"{bucket}/*" for bucket in buckets],
            },
        ],
    }


def keda_policy(account: AwsAccount, workspace_arns: Sequence[str] = ()) -> dict:
    """What KEDA reads to scale endpoints: CloudWatch metrics and Amazon Managed Prometheus.

    Queries are held to the workspaces the endpoints' triggers name, when the stack knows them.
    """
    return {
        "Version": "2012-10-17",
        "Statement": [
            # CloudWatch metric reads support no resource-level permissions.
            {
                "Sid": "CloudWatchMetrics",
                "Effect": "Allow",
                "Resource": "*",
                "Action": [
                    "cloudwatch:GetMetricData",
                    "cloudwatch:GetMetricStatistics",
                    "cloudwatch:ListMetrics",
                ],
            },
            {
                "Sid": "PrometheusQueries",
                "Effect": "Allow",
                "Resource": sorted(set(workspace_arns)) or account.arn("aps", "workspace/*"),
                "Action": [
                    "aps:QueryMetrics",
                    "aps:GetLabels",
                    "aps:GetSeries",
                    "aps:GetMetricMetadata",
                ],
            },
        ],
    }


_LB_DESCRIBE = [
    "ec2:DescribeAccountAttributes",
    "ec2:DescribeAddresses",
    "ec2:DescribeAvailabilityZones",
    "ec2:DescribeInstances",
    "ec2:DescribeInternetGateways",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeSubnets",
    "ec2:DescribeTags",
    "ec2:DescribeVpcs",
    "elasticloadbalancing:DescribeListenerAttributes",
    "elasticloadbalancing:DescribeListenerCertificates",
    "elasticloadbalancing:DescribeListeners",
    "elasticloadbalancing:DescribeLoadBalancerAttributes",
    "elasticloadbalancing:DescribeLoadBalancers",
    "elasticloadbalancing:DescribeRules",
    "elasticloadbalancing:DescribeSSLPolicies",
    "elasticloadbalancing:DescribeTags",
    "elasticloadbalancing:DescribeTargetGroupAttributes",
    "elasticloadbalancing:DescribeTargetGroups",
    "elasticloadbalancing:DescribeTargetHealth",
    "acm:ListCertificates",
    "iam:ListServerCertificates",
    "shield:GetSubscriptionState",
]
_LB_MANAGE = [
    "elasticloadbalancing:AddListenerCertificates",
    "elasticloadbalancing:AddTags",
    "elasticloadbalancing:CreateListener",
    "elasticloadbalancing:CreateLoadBalancer",
    "elasticloadbalancing:CreateRule",
    "elasticloadbalancing:CreateTargetGroup",
    "elasticloadbalancing:DeleteListener",
    "elasticloadbalancing:DeleteLoadBalancer",
    "elasticloadbalancing:DeleteRule",
    "elasticloadbalancing:DeleteTargetGroup",
    "elasticloadbalancing:DeregisterTargets",
    "elasticloadbalancing:ModifyListener",
    "elasticloadbalancing:ModifyListenerAttributes",
    "elasticloadbalancing:ModifyLoadBalancerAttributes",
    "elasticloadbalancing:ModifyRule",
    "elasticloadbalancing:ModifyTargetGroup",
    "elasticloadbalancing:ModifyTargetGroupAttributes",
    "elasticloadbalancing:RegisterTargets",
    "elasticloadbalancing:RemoveListenerCertificates",
    "elasticloadbalancing:RemoveTags",
    "elasticloadbalancing:SetIpAddressType",
    "elasticloadbalancing:SetSecurityGroups",
    "elasticloadbalancing:SetSubnets",
]
_SECURITY_GROUPS = [
    "ec2:AuthorizeSecurityGroupIngress",
    "ec2:CreateSecurityGroup",
    "ec2:CreateTags",
    "ec2:DeleteSecurityGroup",
    "ec2:DeleteTags",
    "ec2:RevokeSecurityGroupIngress",
]


def load_balancer_controller_policy(account: AwsAccount) -> dict:
    """The AWS Load Balancer Controller's work: the inference endpoints' ALBs in this account."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            # Describe and list calls support no resource-level permissions.
            {"Sid": "Describe", "Effect": "Allow", "Action": _LB_DESCRIBE, "Resource": "*"},
            {
                "Sid": "Certificates",
                "Effect": "Allow",
                "Action": ["acm:DescribeCertificate", "iam:GetServerCertificate"],
                "Resource": [
                    account.arn("acm", "certificate/*"),
                    account.arn("iam", "server-certificate/*", regional=False),
                ],
            },
            {
                "Sid": "ServiceLinkedRole",
                "Effect": "Allow",
                "Action": "iam:CreateServiceLinkedRole",
                "Resource": account.arn(
                    "iam",
                    "role/aws-service-role/elasticloadbalancing.amazonaws.com/"
                    "AWSServiceRoleForElasticLoadBalancing",
                    regional=False,
                ),
                "Condition": {
                    "StringEquals": {"iam:AWSServiceName": "elasticloadbalancing.amazonaws.com"}
                },
            },
            {
                "Sid": "LoadBalancers",
                "Effect": "Allow",
                "Action": _LB_MANAGE,
                "Resource": account.arn("elasticloadbalancing", "*"),
            },
            {
                "Sid": "SecurityGroups",
                "Effect": "Allow",
                "Action": _SECURITY_GROUPS,
                "Resource": [
                    account.arn("ec2", "security-group/*"),
                    account.arn("ec2", "vpc/*"),
                ],
            },
        ],
    }
