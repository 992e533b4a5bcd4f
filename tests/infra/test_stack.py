"""The composition: what the dev stack creates, in which order, and the existing-* modes."""

import pytest

from tests.support import (
    PROD_RUNNERS_CIDR,
    dev_config,
    endpoint_configs,
    existing_cluster_config,
    existing_network_config,
    one,
    render,
    waits_for,
)


@pytest.fixture
def dev(dev_render):
    return dev_render


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


def addons(result) -> list:
    return [r for r in result.resources if r.type == "aws:eks/addon:Addon"]


def test_every_add_on_names_the_cluster_by_its_output_so_a_replaced_cluster_takes_them(dev):
    # clusterName forces a new add-on: taken from the control plane, which is deleted before
    # it is replaced, it makes Pulumi delete and create again the add-ons with the cluster.
    # The engine acts on pulumi-eks's control plane; the offline diff sees its component.
    eks = one(dev, "eks:index:Cluster")
    assert {a.inputs["addonName"] for a in addons(dev)} == {
        "eks-pod-identity-agent",
        "coredns",
        "amazon-sagemaker-hyperpod-observability",
        "aws-mountpoint-s3-csi-driver",
        "aws-fsx-csi-driver",
        "metrics-server",
        "cert-manager",
        "amazon-sagemaker-hyperpod-inference",
    }
    for addon in addons(dev):
        sources = addon.property_dependencies.get("clusterName", [])
        assert eks.urn in sources, addon.name
        assert [u for u in sources if u.endswith("$aws:eks/cluster:Cluster::eks-eksCluster")]
        assert addon.inputs["clusterName"] == "hyperpod-dpd-dev"


@pytest.fixture(scope="module")
def existing_cluster():
    return render(existing_cluster_config())


def test_in_an_existing_cluster_the_add_ons_name_it_as_configured(existing_cluster):
    result = existing_cluster
    assert addons(result)
    for addon in addons(result):
        assert addon.inputs["clusterName"] == "shared-hyperpod"
        assert "clusterName" not in addon.property_dependencies


def test_an_existing_cluster_gets_no_network_eks_or_hyperpod_resources(existing_cluster):
    result = existing_cluster
    types = {r.type for r in result.resources}
    assert not {t for t in types if t.startswith(("aws:ec2", "aws:vpc", "eks:", "aws-native"))}
    assert "kubernetes:helm.sh/v3:Release" not in types
    # The cluster's own add-ons are its owner's; the inference operator's are this stack's.
    addons = {r.inputs["addonName"] for r in result.resources if r.type == "aws:eks/addon:Addon"}
    assert not addons & {"coredns", "eks-pod-identity-agent", "vpc-cni", "kube-proxy"}
    assert not [r for r in result.resources if r.name == "lifecycle"]
    assert len(endpoint_configs(result)) == 1
    assert result.outputs["hyperpodClusterArn"].endswith("cluster/abc123def456")


def test_workloads_in_an_existing_cluster_go_through_its_provider(existing_cluster):
    result = existing_cluster
    config = one(result, ":InferenceEndpointConfig")
    assert config.provider == one(result, "pulumi:providers:kubernetes").urn


def test_an_existing_network_is_tagged_and_gets_the_efa_group_in_its_vpc():
    result = render(existing_network_config())
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


def test_every_endpoint_waits_for_the_operator_add_on_whose_webhook_serves_its_crd():
    config = dev_config()
    second = {
        **config["hyperpod-dpd:endpoints"][0],
        "name": "dpd-second",
        "endpointName": "dpd-second",
    }
    config["hyperpod-dpd:endpoints"].append(second)
    config["hyperpod-dpd:cluster"]["instanceGroups"][0]["instanceCount"] = 4
    result = render(config)
    operator = one(result, "aws:eks/addon:Addon", "inference-operator")
    configs = [r for r in result.resources if r.type.endswith(":InferenceEndpointConfig")]
    assert len(configs) == 2
    for endpoint_config in configs:
        assert waits_for(result, endpoint_config, operator)


def test_the_operator_waits_for_hyperpod_nodes(dev):
    operator = one(dev, "aws:eks/addon:Addon", "inference-operator")
    assert waits_for(dev, operator, one(dev, "aws-native:sagemaker:Cluster"))
    assert waits_for(
        dev,
        one(dev, "aws:eks/addon:Addon", "inference-operator-cert-manager"),
        one(dev, "aws-native:sagemaker:Cluster"),
    )


def test_an_installed_operator_is_checked_but_not_installed():
    config = existing_cluster_config()
    config["hyperpod-dpd:operator"] = {"installed": {"operatorVersion": "3.4"}}
    result = render(config)
    names = {r.inputs.get("addonName") for r in result.resources if r.type.endswith(":Addon")}
    assert "amazon-sagemaker-hyperpod-inference" not in names
    assert not [r for r in result.resources if "inference-operator" in r.name]
    assert result.outputs["operator"] == {"operatorVersion": "3.4", "installedByThisStack": False}


def test_the_stack_exports_the_operator(dev):
    operator = dev.outputs["operator"]
    assert operator["operatorVersion"] == "3.4"
    assert operator["addonVersion"] == "v1.5.0-eksbuild.1"
    assert operator["executionRoleArn"].endswith(
        ":role/SageMakerHyperPodInference-hyperpod-dpd-dev"
    )
    assert operator["tlsCertificateBucket"] == "hyperpod-tls-hyperpod-dpd-dev-123456789012"


@pytest.fixture
def prod(prod_render):
    return prod_render


def test_the_prod_example_overrides_what_production_needs(prod):
    result = prod
    (config,) = endpoint_configs(result)
    spec = config["spec"]
    assert spec["instanceType"] == "ml.p5en.48xlarge"
    assert spec["pdSpec"]["prefillSpec"]["replicas"] == 2
    assert spec["intelligentRoutingSpec"]["routingStrategy"] == "roundrobin"
    env = {e["name"]: e["value"] for e in spec["worker"]["environmentVariables"]}
    assert env["PD_BUFFER_SIZE"] == str(16 * 1024**3)
    buckets = [r for r in result.resources if r.type == "aws:s3/bucket:Bucket"]
    assert {b.inputs["bucket"] for b in buckets} == {
        "acme-dpd-prod-access-logs",
        "sagemaker-acme-dpd-prod-lifecycle",
        "acme-dpd-prod-model-weights",
        "hyperpod-tls-acme-dpd-prod",
    }
    assert all(b.options.get("protect") for b in buckets)
    assert one(result, "aws:ec2/vpc:Vpc").inputs["cidrBlock"] == "10.64.0.0/16"
    eks = one(result, "eks:index:Cluster")
    assert eks.inputs["publicAccessCidrs"] == [PROD_RUNNERS_CIDR]
    assert eks.options["protect"] is True
    assert one(result, "aws-native:sagemaker:Cluster").options["protect"] is True
    assert [w for w in result.warnings if w.startswith("hyperpod-dpd:endpoints")] == []


def test_an_endpoint_namespace_is_created_kept_on_destroy_and_waited_for(prod):
    result = prod
    namespace = one(result, "kubernetes:core/v1:Namespace")
    assert namespace.inputs["metadata"] == {"name": "inference"}
    assert namespace.options["retainOnDelete"] is True
    assert waits_for(result, one(result, ":InferenceEndpointConfig"), namespace)


def test_a_stack_with_no_endpoints_builds_the_cluster_and_the_operator_alone():
    config = dev_config()
    config["hyperpod-dpd:endpoints"] = []
    result = render(config, stack="dev")
    assert endpoint_configs(result) == []
    assert one(result, "aws-native:sagemaker:Cluster")
    assert one(result, "aws:eks/addon:Addon", "inference-operator")
    assert result.outputs["endpoints"] == {}
    # The next steps reach the cluster and say nothing of an endpoint to call.
    steps = result.outputs["nextSteps"]
    assert "aws eks update-kubeconfig" in steps and "curl" not in steps
    # The GPU nodes no endpoint claims are said to stand idle, with what they cost.
    assert any("claimed by no endpoint" in w for w in result.warnings)


def test_an_endpoint_az_given_by_id_is_written_as_the_name_node_labels_carry():
    # The mocked account names usw2-az2 us-west-2b (tools/render/mocks/).
    config = dev_config()
    config["hyperpod-dpd:endpoints"][0]["topologySpec"] = {"availabilityZone": "usw2-az2"}
    (built,) = endpoint_configs(render(config))
    assert built["spec"]["pdSpec"]["topologySpec"] == {
        "sameAZ": True,
        "availabilityZone": "us-west-2b",
    }


def test_node_autoscaling_creates_the_pool_after_the_cluster_through_its_provider():
    config = dev_config()
    config["hyperpod-dpd:cluster"]["autoscaling"] = {"enabled": True}
    scaled = render(config)
    node_class = one(scaled, ":HyperpodNodeClass")
    pool = one(scaled, ":NodePool")
    assert pool.inputs["spec"]["limits"] == {"nvidia.com/gpu": "16"}
    assert waits_for(scaled, pool, node_class)
    assert waits_for(scaled, node_class, one(scaled, "aws-native:sagemaker:Cluster"))
    assert node_class.provider.endswith("::eks")
    # The pool waits for the class to be Ready: the cluster's AutoScaling.Status InService.
    assert node_class.inputs["metadata"]["annotations"] == {"pulumi.com/waitFor": "condition=Ready"}
    assert pool.inputs["spec"]["disruption"]["consolidateAfter"] == "1h"
    # Endpoints wait for the pools that bring their nodes.
    assert waits_for(scaled, one(scaled, ":InferenceEndpointConfig"), pool)


def test_no_node_pools_without_node_autoscaling(dev):
    assert [r for r in dev.resources if r.type.endswith((":NodePool", ":HyperpodNodeClass"))] == []
