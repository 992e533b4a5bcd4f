import json

import pytest
from parliament import analyze_policy_string

from components.core.aws_account import AwsAccount
from components.operator.iam import (
    CONTROLLER,
    FSX_CSI_DRIVER,
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

PROVIDER = "arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-west-2.amazonaws.com/id/ABC"
ISSUER = "oidc.eks.us-west-2.amazonaws.com/id/ABC"
ACCOUNT = AwsAccount("123456789012", "aws", "us-west-2")
KEY = "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"


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
    trust = irsa_trust(oidc_provider_arn=PROVIDER, issuer=ISSUER, subjects=[subject(account)])
    (statement,) = trust["Statement"]
    assert statement["Principal"] == {"Federated": PROVIDER}
    assert statement["Action"] == "sts:AssumeRoleWithWebIdentity"
    assert statement["Condition"] == {
        "StringEquals": {f"{ISSUER}:sub": expected, f"{ISSUER}:aud": "sts.amazonaws.com"}
    }


def test_the_gated_model_role_trusts_model_pods_in_the_endpoints_namespaces_only():
    trust = irsa_trust(
        oidc_provider_arn=PROVIDER,
        issuer=ISSUER,
        subjects=gated_model_subjects(["inference", "default", "inference"]),
        sagemaker_account="123456789012",
    )
    federated, service = trust["Statement"]
    assert federated["Condition"] == {
        "StringLike": {
            f"{ISSUER}:sub": [
                "system:serviceaccount:default:hyperpod-inference-service-account*",
                "system:serviceaccount:inference:hyperpod-inference-service-account*",
            ]
        },
        "StringEquals": {f"{ISSUER}:aud": "sts.amazonaws.com"},
    }
    assert service["Principal"] == {"Service": "sagemaker.amazonaws.com"}
    assert service["Condition"] == {"StringEquals": {"aws:SourceAccount": "123456789012"}}


def test_the_execution_role_name_keeps_the_prefix_the_managed_policy_passes():
    assert execution_role_name("dpd") == "SageMakerHyperPodInference-dpd"
    assert len(execution_role_name("c" * 80)) == 64


def test_the_s3_csi_driver_reads_the_model_buckets_and_nothing_else():
    policy = s3_csi_policy(["weights", "more-weights", "weights"], ACCOUNT)
    listing, reading = policy["Statement"]
    assert listing["Action"] == "s3:ListBucket"
    assert listing["Resource"] == ["arn:aws:s3:::more-weights", "arn:aws:s3:::weights"]
    assert reading["Action"] == "s3:GetObject"
    assert reading["Resource"] == ["arn:aws:s3:::more-weights/*", "arn:aws:s3:::weights/*"]


@pytest.mark.parametrize(
    "document",
    [
        s3_csi_policy(["weights"], ACCOUNT, KEY),
        keda_policy(["arn:aws:aps:us-west-2:123456789012:workspace/ws-1"]),
        tls_bucket_key_policy(ACCOUNT, KEY),
        fsx_csi_policy(),
    ],
    ids=["s3-csi", "keda", "tls-bucket-key", "fsx-csi"],
)
def test_parliament_finds_nothing_wrong(document):
    assert analyze_policy_string(json.dumps(document)).findings == []


def test_keda_reads_cloudwatch_and_prometheus_only():
    workspace = "arn:aws:aps:us-west-2:123456789012:workspace/ws-1"
    actions = {a for s in keda_policy([workspace])["Statement"] for a in s["Action"]}
    assert {a.split(":")[0] for a in actions} == {"cloudwatch", "aps"}
    assert all(a.split(":")[1].startswith(("Get", "List", "Query")) for a in actions)


def test_with_a_bucket_key_the_s3_csi_driver_decrypts_and_the_operator_also_encrypts():
    (s3_key,) = [s for s in s3_csi_policy(["w"], ACCOUNT, KEY)["Statement"] if "kms:" in str(s)]
    assert (s3_key["Action"], s3_key["Resource"]) == (["kms:Decrypt"], KEY)
    (tls_key,) = tls_bucket_key_policy(ACCOUNT, KEY)["Statement"]
    assert (tls_key["Action"], tls_key["Resource"]) == (["kms:Decrypt", "kms:GenerateDataKey"], KEY)
    assert "kms:" not in str(s3_csi_policy(["w"], ACCOUNT))


def test_the_fsx_csi_driver_can_only_look_file_systems_up():
    (statement,) = fsx_csi_policy()["Statement"]
    assert statement["Action"] == ["fsx:DescribeFileSystems"]


def test_with_no_workspace_to_query_keda_gets_no_prometheus_reads():
    assert [s["Sid"] for s in keda_policy()["Statement"]] == ["CloudWatchMetrics"]


def test_keda_queries_only_the_workspaces_it_is_given():
    workspace = "arn:aws:aps:us-west-2:123456789012:workspace/ws-1"
    (queries,) = [
        s for s in keda_policy([workspace])["Statement"] if s["Sid"] == "PrometheusQueries"
    ]
    assert "aps:QueryMetrics" in queries["Action"]
    assert queries["Resource"] == [workspace]
    assert analyze_policy_string(json.dumps(keda_policy([workspace]))).findings == []
