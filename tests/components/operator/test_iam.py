import json

import pytest
from parliament import analyze_policy_string

from components.core.aws_account import AwsAccount
from components.operator.iam import (
    CONTROLLER,
    FSX_CSI_DRIVER,
    GATED_MODEL_SUBJECT,
    KEDA,
    LOAD_BALANCER_CONTROLLER,
    S3_CSI_DRIVER,
    execution_role_name,
    irsa_trust,
    keda_policy,
    load_balancer_controller_policy,
    s3_csi_policy,
    subject,
)

PROVIDER = "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/ABC"
ISSUER = "oidc.eks.us-west-2.amazonaws.com/id/ABC"
ACCOUNT = AwsAccount("123456789012", "aws", "us-west-2")


@pytest.mark.parametrize(
    "account, expected",
    [
        (
            CONTROLLER,
            "system:serviceaccount:hyperpod-inference-system:hyperpod-inference-controller-manager",
        ),
        (
            LOAD_BALANCER_CONTROLLER,
            "system:serviceaccount:hyperpod-inference-system:aws-load-balancer-controller",
        ),
        (KEDA, "system:serviceaccount:hyperpod-inference-system:keda-operator"),
        (S3_CSI_DRIVER, "system:serviceaccount:kube-system:s3-csi-driver-sa"),
        (FSX_CSI_DRIVER, "system:serviceaccount:kube-system:fsx-csi-controller-sa"),
    ],
)
def test_each_role_trusts_exactly_its_service_account_and_the_sts_audience(account, expected):
    (statement,) = irsa_trust(oidc_provider_arn=PROVIDER, issuer=ISSUER, subject=subject(account))[
        "Statement"
    ]
    assert statement["Principal"] == {"Federated": PROVIDER}
    assert statement["Action"] == "sts:AssumeRoleWithWebIdentity"
    assert statement["Condition"] == {
        "StringEquals": {f"{ISSUER}:sub": expected, f"{ISSUER}:aud": "sts.amazonaws.com"}
    }


def test_the_gated_model_role_matches_its_accounts_in_every_namespace():
    trust = irsa_trust(
        oidc_provider_arn=PROVIDER, issuer=ISSUER, subject=GATED_MODEL_SUBJECT, also_sagemaker=True
    )
    federated, service = trust["Statement"]
    assert federated["Condition"] == {
        "StringLike": {
            f"{ISSUER}:sub": "system:serviceaccount:*:hyperpod-inference-service-account*"
        },
        "StringEquals": {f"{ISSUER}:aud": "sts.amazonaws.com"},
    }
    assert service["Principal"] == {"Service": "sagemaker.amazonaws.com"}


def test_the_execution_role_name_keeps_the_prefix_the_managed_policy_passes():
    assert execution_role_name("dpd") == "SageMakerHyperPodInference-dpd"
    assert len(execution_role_name("c" * 80)) == 64


def test_the_s3_csi_driver_reads_the_model_buckets_and_nothing_else():
    policy = s3_csi_policy(["weights", "more-weights", "weights"])
    listing, reading = policy["Statement"]
    assert listing["Action"] == "s3:ListBucket"
    assert listing["Resource"] == ["arn:aws:s3:::more-weights", "arn:aws:s3:::weights"]
    assert reading["Action"] == "s3:GetObject"
    assert reading["Resource"] == ["arn:aws:s3:::more-weights/*", "arn:aws:s3:::weights/*"]


@pytest.mark.parametrize(
    "document",
    [
        s3_csi_policy(["weights"]),
        keda_policy(ACCOUNT),
        load_balancer_controller_policy(ACCOUNT),
    ],
    ids=["s3-csi", "keda", "load-balancer-controller"],
)
def test_parliament_finds_nothing_wrong(document):
    assert analyze_policy_string(json.dumps(document)).findings == []


def test_keda_reads_cloudwatch_and_prometheus_only():
    actions = {a for s in keda_policy(ACCOUNT)["Statement"] for a in s["Action"]}
    assert {a.split(":")[0] for a in actions} == {"cloudwatch", "aps"}
    assert all(a.split(":")[1].startswith(("Get", "List", "Query")) for a in actions)


def test_keda_queries_only_the_workspaces_it_is_given():
    workspace = "arn:aws:aps:us-west-2:123456789012:workspace/ws-1"
    (queries,) = [
        s for s in keda_policy(ACCOUNT, [workspace])["Statement"] if s["Sid"] == "PrometheusQueries"
    ]
    assert "aps:QueryMetrics" in queries["Action"]
    assert queries["Resource"] == [workspace]
    assert analyze_policy_string(json.dumps(keda_policy(ACCOUNT, [workspace]))).findings == []
