"""The IAM documents of the HyperPod Inference Operator and its helpers. Each role is assumed by
one service account through the cluster's OIDC provider (IRSA), named exactly in its trust: the
add-on's accounts differ from the Helm chart's, so a trust written for the Helm install fails."""

from collections.abc import Sequence

from components.core.aws_account import AwsAccount
from components.core.iam_statement import (
    CLOUDWATCH_METRICS_READ,
    PROMETHEUS_READ,
    Statement,
    policy_document,
)
from components.core.kms_access import kms_statement
from components.core.service_trust import SAGEMAKER, service_trust_statement

OPERATOR_NAMESPACE = "hyperpod-inference-system"
AUDIENCE = "sts.amazonaws.com"
# The operator's managed policy may pass only roles whose name starts with this.
EXECUTION_ROLE_PREFIX = "SageMakerHyperPodInference"
ROLE_NAME_MAX = 64

INFERENCE_ACCESS_POLICY = "arn:aws:iam::aws:policy/AmazonSageMakerHyperPodInferenceAccess"
GATED_MODEL_POLICY = "arn:aws:iam::aws:policy/AmazonSageMakerHyperPodGatedModelAccess"

# The service accounts (namespace, name) each role is for.
CONTROLLER = (OPERATOR_NAMESPACE, "hyperpod-inference-controller-manager")
LOAD_BALANCER_CONTROLLER = (OPERATOR_NAMESPACE, "aws-load-balancer-controller")
KEDA = (OPERATOR_NAMESPACE, "keda-operator")
S3_CSI_DRIVER = ("kube-system", "s3-csi-driver-sa")
FSX_CSI_DRIVER = ("kube-system", "fsx-csi-controller-sa")
# Model pods download gated JumpStart models as these accounts, in their endpoint's namespace.
GATED_MODEL_ACCOUNT = "hyperpod-inference-service-account*"


def subject(service_account: tuple[str, str]) -> str:
    namespace, name = service_account
    return f"system:serviceaccount:{namespace}:{name}"


def gated_model_subjects(namespaces: Sequence[str]) -> list[str]:
    """The model pods' accounts in the endpoints' namespaces, and in no other."""
    return [subject((namespace, GATED_MODEL_ACCOUNT)) for namespace in sorted(set(namespaces))]


def irsa_trust(
    *,
    oidc_provider_arn: str,
    issuer: str,
    subjects: Sequence[str],
    sagemaker_account: str | None = None,
) -> dict:
    """Trust for these service accounts (a `*` in one matches with StringLike), and for
    SageMaker on behalf of `sagemaker_account` when given."""
    sub, aud = f"{issuer}:sub", f"{issuer}:aud"
    value: str | list[str] = subjects[0] if len(subjects) == 1 else list(subjects)
    if any("*" in s for s in subjects):
        condition = {"StringLike": {sub: value}, "StringEquals": {aud: AUDIENCE}}
    else:
        condition = {"StringEquals": {sub: value, aud: AUDIENCE}}
    statements = [
        {
            "Effect": "Allow",
            "Principal": {"Federated": oidc_provider_arn},
            "Action": "sts:AssumeRoleWithWebIdentity",
            "Condition": condition,
        }
    ]
    if sagemaker_account is not None:
        # The role serves endpoints SageMaker creates later, whose ARNs are not known here.
        statements.append(service_trust_statement(SAGEMAKER, account_id=sagemaker_account))
    return {"Version": "2012-10-17", "Statement": statements}


def execution_role_name(cluster_name: str) -> str:
    return f"{EXECUTION_ROLE_PREFIX}-{cluster_name}"[:ROLE_NAME_MAX]


def s3_csi_policy(
    bucket_names: Sequence[str], account: AwsAccount, kms_key_arn: str | None = None
) -> dict:
    """Read-only access to the weights, for the Mountpoint CSI driver that mounts them."""
    buckets = [f"arn:{account.partition}:s3:::{name}" for name in sorted(set(bucket_names))]
    statements = [
        Statement("s3:ListBucket", buckets, sid="ListWeights"),
        Statement("s3:GetObject", [f"{bucket}/*" for bucket in buckets], sid="ReadWeights"),
    ]
    if kms_key_arn is not None:
        statements.append(kms_statement(kms_key_arn, region=account.region, writes=False))
    return policy_document(statements)


def tls_bucket_key_policy(account: AwsAccount, kms_key_arn: str) -> dict:
    """The operator writes its TLS certificates to the bucket: with SSE-KMS, through the key.
    (AmazonSageMakerHyperPodInferenceAccess grants the S3 side, not the key.)"""
    return policy_document([kms_statement(kms_key_arn, region=account.region, writes=True)])


def fsx_csi_policy() -> dict:
    """What the FSx CSI driver needs here, instead of AmazonFSxFullAccess: endpoints name an
    existing file system, mounted statically, so it only looks file systems up (a list action,
    with no resource-level permissions). The operator's init container checks the driver is
    installed, so it stays even without FSx endpoints."""
    return policy_document([Statement(["fsx:DescribeFileSystems"], sid="DescribeFileSystems")])


def keda_policy(workspace_arns: Sequence[str] = ()) -> dict:
    """What KEDA reads to scale endpoints: CloudWatch metrics, and the AMP workspaces the
    triggers name (none, no AMP reads at all)."""
    statements: list[dict] = [
        # CloudWatch metric reads support no resource-level permissions.
        {
            "Sid": "CloudWatchMetrics",
            "Effect": "Allow",
            "Resource": "*",
            "Action": CLOUDWATCH_METRICS_READ,
        }
    ]
    if workspace_arns:
        statements.append(
            {
                "Sid": "PrometheusQueries",
                "Effect": "Allow",
                "Resource": sorted(set(workspace_arns)),
                "Action": PROMETHEUS_READ,
            }
        )
    return {"Version": "2012-10-17", "Statement": statements}
