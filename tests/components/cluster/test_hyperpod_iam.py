import json

from parliament import analyze_policy_string

from components.cluster.hyperpod_iam import execution_policy, execution_trust
from components.core.aws_account import AwsAccount

CLUSTER = "arn:aws:eks:us-west-2:123456789012:cluster/dpd"
SUBNET = "arn:aws:ec2:us-west-2:123456789012:subnet/subnet-0123456789abcdef0"
VPC = "arn:aws:ec2:us-west-2:123456789012:vpc/vpc-0123456789abcdef0"
KEY = "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def policy(lifecycle_bucket: str | None = "sagemaker-dpd-lifecycle", kms_key_arn=None) -> dict:
    return execution_policy(
        AwsAccount("123456789012", "aws", "us-west-2"),
        eks_cluster_arn=CLUSTER,
        vpc_id="vpc-0123456789abcdef0",
        subnet_ids=["subnet-0123456789abcdef0"],
        security_group_id="sg-0123456789abcdef0",
        lifecycle_bucket=lifecycle_bucket,
        kms_key_arn=kms_key_arn,
    )


def statement(sid: str, document: dict) -> dict:
    (found,) = [s for s in document["Statement"] if s["Sid"] == sid]
    return found


def test_parliament_finds_nothing_wrong():
    assert analyze_policy_string(json.dumps(policy(kms_key_arn=KEY))).findings == []


def test_only_actions_without_resource_level_permissions_use_a_wildcard():
    wildcards = {s["Sid"] for s in policy()["Statement"] if s["Resource"] == "*"}
    assert wildcards == {"Describe", "EcrToken"}


def test_the_vpc_cni_can_read_instances_and_attach_interfaces():
    assert {"ec2:DescribeInstances", "ec2:DescribeTags", "ec2:DescribeInstanceTypes"} <= set(
        statement("Describe", policy())["Action"]
    )
    assert "ec2:AttachNetworkInterface" in statement("NetworkInterfaces", policy())["Action"]


def test_existing_interfaces_are_confined_to_the_vpc_and_subnets():
    interfaces = statement("NetworkInterfaces", policy())
    assert "arn:aws:ec2:us-west-2:123456789012:network-interface/*" in interfaces["Resource"]
    assert interfaces["Condition"] == {
        "ArnEqualsIfExists": {"ec2:Vpc": VPC, "ec2:Subnet": [SUBNET]}
    }


def test_interfaces_are_tagged_only_in_the_vpc_and_subnets_without_a_create_action_condition():
    # The VPC CNI tags existing interfaces too (TagENI), which ec2:CreateAction would refuse.
    tagging = statement("TagNetworkInterfaces", policy())
    assert (tagging["Action"], tagging["Resource"]) == (
        "ec2:CreateTags",
        "arn:aws:ec2:us-west-2:123456789012:network-interface/*",
    )
    assert tagging["Condition"] == {"ArnEqualsIfExists": {"ec2:Vpc": VPC, "ec2:Subnet": [SUBNET]}}


def test_new_interfaces_go_only_in_the_subnets_and_the_security_group():
    resources = statement("CreateNetworkInterfaces", policy())["Resource"]
    assert SUBNET in resources
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


def test_nodes_decrypt_with_the_bucket_key_only_and_only_when_there_is_one():
    key = statement("BucketKey", policy(kms_key_arn=KEY))
    assert key["Action"] == ["kms:Decrypt"]
    assert key["Resource"] == KEY
    assert key["Condition"] == {"StringEquals": {"kms:ViaService": "s3.us-west-2.amazonaws.com"}}
    assert "kms:" not in json.dumps(policy())


def test_trusted_by_sagemaker_for_this_account_only():
    (trust,) = execution_trust("123456789012")["Statement"]
    assert trust["Principal"] == {"Service": "sagemaker.amazonaws.com"}
    assert trust["Condition"] == {"StringEquals": {"aws:SourceAccount": "123456789012"}}
