"""Mocked IDs stand for their resource: its type and name give them, whatever its inputs, and
every other value the mocks make up carries the ID, so the offline diff reads each as a
reference to the resource (tools/diff/references.py)."""

import json

from pulumi.runtime import MockResourceArgs

from tools.render.mocks.cloud import CloudMocks

SUBNET = "aws:ec2/subnet:Subnet"


def subnet(name="private", **inputs) -> tuple[str, dict]:
    mocks = CloudMocks("us-west-2")
    base = {"vpcId": "vpc-1", "cidrBlock": "10.0.0.0/24", "availabilityZoneId": "usw2-az1"}
    return mocks.new_resource(MockResourceArgs(SUBNET, name, {**base, **inputs}))


def test_an_id_is_the_resources_whatever_its_inputs():
    assert subnet(cidrBlock="10.1.0.0/24")[0] == subnet(tags={"team": "ml"})[0] == subnet()[0]
    assert subnet("public")[0] != subnet()[0]


def test_every_made_up_value_carries_the_id():
    subnet_id, outputs = subnet()
    assert outputs["arn"].endswith(f"subnet/{subnet_id}")
    eks_id, outputs = CloudMocks("us-west-2").new_resource(
        MockResourceArgs("eks:index:Cluster", "eks", {"name": "dpd"})
    )
    for made_up in ("oidcIssuer", "oidcProviderArn", "kubeconfigJson"):
        assert eks_id in outputs[made_up]


def test_grafana_resources_live_at_the_address_of_their_provider():
    mocks = CloudMocks("us-west-2")
    url = "https://g-0123456789.grafana-workspace.us-west-2.amazonaws.com"
    provider_id, _ = mocks.new_resource(
        MockResourceArgs("pulumi:providers:grafana", "dashboards", {"url": url})
    )
    board = {"uid": "hyperpod-dpd", "title": "HyperPod DPD endpoints"}
    args = MockResourceArgs(
        "grafana:oss/dashboard:Dashboard",
        "dashboards",
        {"configJson": json.dumps(board)},
        provider=f"urn:pulumi:dev::hyperpod-dpd::pulumi:providers:grafana::dashboards::{provider_id}",
    )
    resource_id, outputs = mocks.new_resource(args)
    assert resource_id == "1:hyperpod-dpd"
    assert outputs["url"] == f"{url}/d/hyperpod-dpd/hyperpod-dpd-endpoints"
