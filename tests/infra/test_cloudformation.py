"""The rendered AWS resources pass cfn-lint, which holds CloudFormation's own schemas."""

import copy
import json

import pytest
from cfnlint.api import ManualArgs, lint

from tests.cloudformation import REGION, template
from tests.support import dev_config, render


def lint_errors(resources) -> list[str]:
    matches = lint(json.dumps(template(resources)), config=ManualArgs(regions=[REGION]))
    return [f"{m.rule.id} {'/'.join(map(str, m.path))}: {m.message}" for m in matches]


@pytest.fixture
def dev(dev_render):
    return dev_render


def test_the_dev_stack_passes_cfn_lint(dev):
    assert lint_errors(dev.resources) == []


def test_the_template_covers_the_whole_stack(dev):
    types = {r["Type"] for r in template(dev.resources)["Resources"].values()}
    assert {
        "AWS::SageMaker::Cluster",
        "AWS::EKS::Cluster",
        "AWS::EKS::Addon",
        "AWS::EC2::VPC",
        "AWS::EC2::Subnet",
        "AWS::EC2::RouteTable",
        "AWS::EC2::Route",
        "AWS::EC2::SubnetRouteTableAssociation",
        "AWS::EC2::SecurityGroupIngress",
        "AWS::EC2::SecurityGroupEgress",
        "AWS::IAM::Role",
        "AWS::S3::Bucket",
        "AWS::S3::BucketPolicy",
    } <= types


def test_buckets_carry_their_settings_and_roles_their_policies(dev):
    resources = template(dev.resources)["Resources"]
    model = resources["ModelWeightsBucket"]["Properties"]
    assert {
        "BucketEncryption",
        "PublicAccessBlockConfiguration",
        "VersioningConfiguration",
        "LoggingConfiguration",
        "OwnershipControls",
    } <= model.keys()
    nodes = resources["HyperpodExecutionRole"]["Properties"]
    assert nodes["ManagedPolicyArns"] == [
        "arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy"
    ]
    assert [p["PolicyName"] for p in nodes["Policies"]] == ["hyperpod-nodes"]
    eks = resources["EksCluster"]["Properties"]["ResourcesVpcConfig"]
    assert eks["PublicAccessCidrs"] == ["0.0.0.0/0"]


def hyperpod_cluster(resources) -> list:
    """A copy of the HyperPod cluster among `resources`, alone: the tests below change it and
    lint it without the stack's other resources, whose values it holds as rendered IDs."""
    return copy.deepcopy([r for r in resources if r.type == "aws-native:sagemaker:Cluster"])


def with_first_group(dev, **changes) -> list:
    """The dev stack's HyperPod cluster with its first instance group changed."""
    (cluster,) = resources = hyperpod_cluster(dev.resources)
    cluster.inputs["instanceGroups"][0].update(changes)
    return resources


def test_a_wrong_instance_type_fails_cfn_lint(dev):
    errors = lint_errors(with_first_group(dev, instanceType="ml.p5.48xl"))
    assert any("InstanceType" in e and "'ml.p5.48xl' is not one of" in e for e in errors)


def test_an_unknown_property_fails_cfn_lint(dev):
    errors = lint_errors(with_first_group(dev, threadsPerCpu=1))
    assert any("'threadsPerCpu' was unexpected" in e for e in errors)


@pytest.fixture(scope="module")
def autoscaled():
    config = dev_config()
    config["hyperpod-dpd:cluster"]["autoscaling"] = {"enabled": True}
    return render(config, stack="dev")


def test_node_autoscaling_inputs_pass_cfn_lint(autoscaled, dev):
    # What autoscaling adds or changes, linted alone: the dev stack's other resources pass above.
    before = {r.urn: r.inputs for r in dev.resources}
    changed = [r for r in autoscaled.resources if before.get(r.urn) != r.inputs]
    assert len(template(changed)["Resources"]) > 1
    assert lint_errors(changed) == []
    (cluster,) = [
        r
        for r in template(autoscaled.resources)["Resources"].values()
        if r["Type"] == "AWS::SageMaker::Cluster"
    ]
    properties = cluster["Properties"]
    assert properties["AutoScaling"] == {"Mode": "Enable", "AutoScalerType": "Karpenter"}
    assert properties["ClusterRole"].startswith("arn:aws:iam::123456789012:role/")
    assert [g["InstanceCount"] for g in properties["InstanceGroups"]] == [0, 1]


def test_an_unknown_auto_scaler_fails_cfn_lint(autoscaled):
    (cluster,) = resources = hyperpod_cluster(autoscaled.resources)
    cluster.inputs["autoScaling"]["autoScalerType"] = "ClusterAutoscaler"
    errors = lint_errors(resources)
    assert any("AutoScalerType" in e and "'ClusterAutoscaler' is not one of" in e for e in errors)


def test_min_instance_count_passes_cfn_lint():
    config = dev_config()
    config["hyperpod-dpd:cluster"]["instanceGroups"][0]["minInstanceCount"] = 1
    (cluster,) = resources = hyperpod_cluster(render(config, stack="dev").resources)
    # The setting changes the cluster alone; the dev stack's other resources pass above.
    assert lint_errors(resources) == []
    assert cluster.inputs["instanceGroups"][0]["minInstanceCount"] == 1
