import json

from parliament import analyze_policy_string

from components.cluster.hyperpod_iam import SAGEMAKER_TRUST, execution_policy
from components.core.aws_account import AwsAccount

CLUSTER = "arn:aws:eks:us-west-2:123456789012:cluster/dpd"


def policy(lifecycle_bucket: str | None = "sagemaker-dpd-lifecycle") -> dict:
    return execution_policy(
        AwsAccount("123456789012", "aws", "us-west-2"),
        eks_cluster_arn=CLUSTER,
        subnet_ids=["subnet-0123456789abcdef0"],
        security_group_id="sg-0123456789abcdef0",
        lifecycle_bucket=lifecycle_bucket,
    )


def statement(sid: str, document: dict) -> dict:
    (found,) = [s for s in document["Statement"] if s["Sid"] == sid]
    return found


def test_parliament_finds_nothing_wrong():
    assert analyze_policy_string(json.dumps(policy())).findings == []


def test_only_actions_without_resource_level_permissions_use_a_wildcard():
    wildcards = {s["Sid"] for s in policy()["Statement"] if s["Resource"] == "*"}
    assert wildcards == {"Describe", "EcrToken"}


def test_network_interfaces_are_scoped_to_the_subnets_and_the_security_group():
    resources = statement("NetworkInterfaces", policy())["Resource"]
    assert "arn:aws:ec2:us-west-2:123456789012:subnet/subnet-0123456789abcdef0" in resources
    assert "arn:aws:ec2:us-west-2:123456789012:security-group/sg-0123456789abcdef0" in resources


def test_pod_identity_is_scoped_to_the_cluster():
    assert statement("PodIdentity", policy())["Resource"] == CLUSTER


def test_the_lifecycle_bucket_is_readable_and_nothing_else_in_s3():
    document = policy()
    assert statement("ListLifecycleScripts", document)["Resource"] == (
        "arn:aws:s3:::sagemaker-dpd-lifecycle"
    )
    assert statement("ReadLifecycleScripts", document) == {
        "Sid": "ReadLifecycleScripts",
        "Effect": "Allow",
        "Action": "s3:GetObject",
        "Resource": "arn:aws:s3:::sagemaker-dpd-lifecycle/*",
    }
    s3 = [s for s in policy(None)["Statement"] if "s3:" in json.dumps(s["Action"])]
    assert s3 == []


def test_trusted_by_sagemaker_only():
    (trust,) = SAGEMAKER_TRUST["Statement"]
    assert trust["Principal"] == {"Service": "sagemaker.amazonaws.com"}
