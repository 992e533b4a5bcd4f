"""The rendered IAM documents hold what the controllers need, scoped as upstream scopes it.

Read from the dev stack's render, and from a variant with a customer managed bucket key and
the gated-model role.
"""

import pytest

from tests.iam_documents import document_of, statements_granting
from tests.support import dev_config, render

KEY = "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"
ACCOUNT = "123456789012"


@pytest.fixture
def dev(dev_render):
    return dev_render.resources


@pytest.fixture(scope="module")
def kms():
    config = dev_config()
    config["hyperpod-dpd:buckets"] = {"kmsKeyArn": KEY}
    config["hyperpod-dpd:operator"] = {"gatedModels": True}
    return render(config, stack="dev").resources


def load_balancer(resources) -> dict:
    return document_of(resources, ":RolePolicy", "inference-operator-load-balancer-controller")


def nodes(resources) -> dict:
    return document_of(resources, ":RolePolicy", "hyperpod-execution")


@pytest.mark.parametrize(
    "policy, action",
    [
        # What trimmed copies of the load balancer controller's policy lack.
        *(
            (load_balancer, action)
            for action in (
                "ec2:GetSecurityGroupsForVpc",
                "ec2:DescribeRouteTables",
                "elasticloadbalancing:DescribeCapacityReservation",
                "elasticloadbalancing:ModifyCapacityReservation",
                "elasticloadbalancing:DescribeTrustStores",
                "elasticloadbalancing:SetRulePriorities",
                "waf-regional:GetWebACL",
                "wafv2:AssociateWebACL",
                "shield:CreateProtection",
                "cognito-idp:DescribeUserPoolClient",
            )
        ),
        # What the VPC CNI calls as the node role.
        *(
            (nodes, action)
            for action in (
                "ec2:AttachNetworkInterface",
                "ec2:DescribeInstances",
                "ec2:DescribeTags",
                "ec2:DescribeInstanceTypes",
            )
        ),
    ],
    ids=lambda v: v if isinstance(v, str) else v.__name__,
)
def test_each_controller_may_do_what_it_calls(dev, policy, action):
    assert statements_granting(policy(dev), action)


def test_the_load_balancer_controller_changes_only_what_carries_its_cluster_tag(dev):
    policy = load_balancer(dev)
    (modify,) = statements_granting(policy, "elasticloadbalancing:ModifyCapacityReservation")
    assert modify["Condition"] == {"Null": {"aws:ResourceTag/elbv2.k8s.aws/cluster": "false"}}
    tagging = statements_granting(policy, "ec2:CreateTags")
    assert {"ec2:CreateAction": "CreateSecurityGroup"} in [
        s["Condition"].get("StringEquals") for s in tagging
    ]


def test_node_interface_actions_are_confined_to_the_stacks_vpc_and_subnets(dev):
    vpc = one_by_name(dev, "aws:ec2/vpc:Vpc")
    # The subnets the HyperPod nodes (and so their pods' interfaces) live in.
    subnets = sorted(
        one_by_name(dev, "aws-native:sagemaker:Cluster").inputs["vpcConfig"]["subnets"]
    )
    (interfaces,) = statements_granting(nodes(dev), "ec2:DeleteNetworkInterface")
    condition = interfaces["Condition"]["ArnEqualsIfExists"]
    assert condition["ec2:Vpc"] == f"arn:aws:ec2:us-west-2:{ACCOUNT}:vpc/{vpc.id}"
    assert sorted(s.rsplit("/", 1)[1] for s in condition["ec2:Subnet"]) == subnets


def one_by_name(resources, type_: str):
    (found,) = [r for r in resources if r.type == type_]
    return found


@pytest.mark.parametrize(
    "policy, actions",
    [
        ("hyperpod-execution", ["kms:Decrypt"]),
        ("inference-operator-s3-csi-driver", ["kms:Decrypt"]),
        ("inference-operator-execution", ["kms:Decrypt", "kms:GenerateDataKey"]),
    ],
)
def test_with_a_bucket_key_each_role_that_touches_the_buckets_may_use_that_key_only(
    kms, policy, actions
):
    document = document_of(kms, ":RolePolicy", policy)
    granting = [s for s in document["Statement"] if "kms:" in str(s["Action"])]
    assert [(s["Action"], s["Resource"]) for s in granting] == [(actions, KEY)]


def test_without_a_bucket_key_no_role_touches_kms(dev):
    assert "kms:" not in str([r.inputs for r in dev if r.type.startswith("aws:iam/")])


@pytest.mark.parametrize("role", ["hyperpod-execution", "inference-operator-execution"])
def test_sagemaker_assumes_roles_for_this_account_only(dev, role):
    trust = document_of(dev, ":Role", role)
    (sagemaker,) = [
        s for s in trust["Statement"] if s["Principal"] == {"Service": "sagemaker.amazonaws.com"}
    ]
    assert sagemaker["Condition"] == {"StringEquals": {"aws:SourceAccount": ACCOUNT}}


def test_the_gated_model_role_trusts_the_endpoints_namespaces_only(kms):
    trust = document_of(kms, ":Role", "inference-operator-gated-models")
    federated, sagemaker = trust["Statement"]
    (subjects,) = federated["Condition"]["StringLike"].values()
    assert subjects == "system:serviceaccount:default:hyperpod-inference-service-account*"
    assert sagemaker["Condition"] == {"StringEquals": {"aws:SourceAccount": ACCOUNT}}


def test_the_lifecycle_scripts_bucket_is_versioned_and_the_model_bucket_retained(dev):
    versioned = {r.name for r in dev if r.type == "aws:s3/bucketVersioning:BucketVersioning"}
    assert {"lifecycle", "model-weights"} <= versioned
    (model,) = [r for r in dev if r.type == "aws:s3/bucket:Bucket" and r.name == "model-weights"]
    assert model.options["retainOnDelete"] is True
