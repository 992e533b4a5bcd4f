import json

from components.operator.load_balancer_policy import (
    CONTROLLER_VERSION,
    load_balancer_controller_policy,
)

POLICY = load_balancer_controller_policy()


def statements_with(action: str) -> list[dict]:
    return [s for s in POLICY["Statement"] if action in s["Action"]]


def test_it_matches_the_controller_the_operator_chart_bundles():
    assert CONTROLLER_VERSION == "v2.13.2"


def test_writes_to_existing_resources_need_the_cluster_tag():
    for action in ("elasticloadbalancing:DeleteLoadBalancer", "ec2:DeleteSecurityGroup"):
        (statement,) = statements_with(action)
        assert statement["Condition"] == {
            "Null": {"aws:ResourceTag/elbv2.k8s.aws/cluster": "false"}
        }


def test_security_groups_are_tagged_only_as_they_are_created_with_the_cluster_tag():
    (creating,) = [
        s for s in statements_with("ec2:CreateTags") if "StringEquals" in s.get("Condition", {})
    ]
    assert creating["Condition"] == {
        "StringEquals": {"ec2:CreateAction": "CreateSecurityGroup"},
        "Null": {"aws:RequestTag/elbv2.k8s.aws/cluster": "false"},
    }


def test_the_partition_reaches_every_arn():
    china = json.dumps(load_balancer_controller_policy("aws-cn"))
    assert "arn:aws:" not in china and "arn:aws-cn:ec2:*:*:security-group/*" in china
