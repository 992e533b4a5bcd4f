"""The composition: what the dev stack creates, in which order, and the existing-* modes."""

import pytest

from tests.support import dev_config, endpoint_configs, one, render, waits_for


@pytest.fixture(scope="module")
def dev():
    return render(dev_config(), stack="dev")


CREATION_ORDER = [
    ("aws:ec2/vpc:Vpc", None),
    ("aws:ec2/subnet:Subnet", "network-private-usw2-az2"),
    ("eks:index:Cluster", None),
    ("kubernetes:helm.sh/v3:Release", None),
    ("aws-native:sagemaker:Cluster", None),
    ("aws:eks/addon:Addon", "node-addons-coredns"),
    (":InferenceEndpointConfig", None),
]


@pytest.mark.parametrize("step", range(len(CREATION_ORDER) - 1))
def test_each_step_waits_for_the_one_before(dev, step):
    later, earlier = one(dev, *CREATION_ORDER[step + 1]), one(dev, *CREATION_ORDER[step])
    assert waits_for(dev, later, earlier)
    assert not waits_for(dev, earlier, later)


def test_eks_and_every_instance_group_share_the_efa_security_group(dev):
    group = one(dev, "aws:ec2/securityGroup:SecurityGroup")
    assert one(dev, "eks:index:Cluster").inputs["clusterSecurityGroup"] == group.urn
    hyperpod = one(dev, "aws-native:sagemaker:Cluster").inputs
    assert hyperpod["vpcConfig"]["securityGroupIds"] == [group.id]
    for instance_group in hyperpod["instanceGroups"]:
        assert instance_group["overrideVpcConfig"]["securityGroupIds"] == [group.id]


def test_the_endpoint_reads_the_stack_model_bucket(dev):
    (config,) = endpoint_configs(dev)
    bucket = one(dev, "aws:s3/bucket:Bucket", "model-weights")
    assert config["spec"]["modelSourceConfig"]["s3Storage"]["bucketName"] == bucket.id


def test_the_dev_stack_exports_the_clusters(dev):
    assert dev.outputs["eksCluster"] == "hyperpod-dpd-dev"
    assert dev.outputs["hyperpodClusterArn"].startswith("arn:aws:sagemaker:us-west-2:")


def existing_cluster_config() -> dict:
    config = dev_config()
    del config["hyperpod-dpd:network"]
    config["hyperpod-dpd:cluster"] = {
        "existing": {
            "eksClusterName": "shared-hyperpod",
            "hyperpodClusterArn": "arn:aws:sagemaker:us-west-2:123456789012:cluster/abc123def456",
        }
    }
    return config


def test_an_existing_cluster_gets_no_network_eks_or_hyperpod_resources():
    result = render(existing_cluster_config())
    types = {r.type for r in result.resources}
    assert not {t for t in types if t.startswith(("aws:ec2", "aws:vpc", "eks:", "aws-native"))}
    assert "kubernetes:helm.sh/v3:Release" not in types
    assert "aws:eks/addon:Addon" not in types
    assert not [r for r in result.resources if r.name == "lifecycle"]
    assert len(endpoint_configs(result)) == 1
    assert result.outputs["hyperpodClusterArn"].endswith("cluster/abc123def456")


def test_workloads_in_an_existing_cluster_go_through_its_provider():
    result = render(existing_cluster_config())
    config = one(result, ":InferenceEndpointConfig")
    assert config.provider == one(result, "pulumi:providers:kubernetes").urn


def test_an_existing_network_is_tagged_and_gets_the_efa_group_in_its_vpc():
    config = dev_config()
    config["hyperpod-dpd:network"] = {
        "existing": {
            "vpcId": "vpc-0123456789abcdef0",
            "privateSubnetIds": {
                "usw2-az2": "subnet-0123456789abcdef0",
                "usw2-az3": "subnet-0123456789abcdef1",
            },
        }
    }
    result = render(config)
    types = {r.type for r in result.resources}
    assert "aws:ec2/vpc:Vpc" not in types and "aws:ec2/subnet:Subnet" not in types
    assert one(result, "aws:ec2/securityGroup:SecurityGroup").inputs["vpcId"] == (
        "vpc-0123456789abcdef0"
    )
    https = [
        r.inputs
        for r in result.resources
        if r.type.endswith("IngressRule") and r.inputs.get("fromPort") == 443
    ]
    assert https[0]["cidrIpv4"] == "10.20.0.0/16"  # the existing VPC's CIDR, looked up
    groups = one(result, "aws-native:sagemaker:Cluster").inputs["instanceGroups"]
    assert groups[0]["overrideVpcConfig"]["subnets"] == ["subnet-0123456789abcdef0"]
