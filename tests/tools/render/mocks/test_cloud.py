"""Mocked IDs follow the inputs that force a replacement, as AWS IDs do."""

import json

from pulumi.runtime import MockResourceArgs

from tools.render.mocks.cloud import CloudMocks, WireRegistration

SUBNET = "aws:ec2/subnet:Subnet"


def subnet_id(**inputs) -> str:
    mocks = CloudMocks("us-west-2")
    base = {"vpcId": "vpc-1", "cidrBlock": "10.0.0.0/24", "availabilityZoneId": "usw2-az1"}
    resource_id, _ = mocks.new_resource(MockResourceArgs(SUBNET, "private", {**base, **inputs}))
    return resource_id


def test_an_immutable_input_change_gives_a_new_id():
    assert subnet_id(cidrBlock="10.1.0.0/24") != subnet_id()
    assert subnet_id(vpcId="vpc-2") != subnet_id()


def test_an_in_place_update_keeps_the_id():
    assert subnet_id(tags={"team": "ml"}) == subnet_id()


def test_recorded_replace_on_changes_count_too():
    def cluster_arn(subnets: list[str]) -> str:
        mocks = CloudMocks("us-west-2")
        inputs = {"vpcConfig": {"subnets": subnets}}
        mocks.registering = WireRegistration(inputs, ("vpcConfig",))
        args = MockResourceArgs("aws-native:sagemaker:Cluster", "hyperpod", inputs)
        return mocks.new_resource(args)[0]

    assert cluster_arn(["subnet-a"]) != cluster_arn(["subnet-b"])


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
