"""The diff's replacements come from CloudFormation's create-only properties for every AWS
type the stack creates, and from a stated source for the types CloudFormation has not."""

import json

import pytest

from scripts.derive_create_only import derive
from tests.support import (
    dev_config,
    existing_cluster_config,
    existing_network_config,
    render,
)
from tests.tools.diff.in_process import by_name, changes
from tools.diff.cloudformation_types import LEFT_OUT, NAME_ONLY_TWINS, TWINS
from tools.diff.replacements import CREATE_ONLY_PATH, HAND_REPLACES, replace_triggers


def test_the_committed_table_is_what_the_script_derives_from_cfn_lint():
    assert json.loads(CREATE_ONLY_PATH.read_text()) == derive()


def with_grafana():
    config = dev_config()
    config["hyperpod-dpd:observability"] = {"enabled": True, "grafana": {}}
    return config


def with_node_autoscaling():
    config = dev_config()
    config["hyperpod-dpd:cluster"]["autoscaling"] = {"enabled": True}
    return config


@pytest.fixture(scope="module")
def aws_resources(dev_render, prod_render):
    configs = [
        with_grafana(),
        with_node_autoscaling(),
        existing_network_config("sg-0123456789abcdef0"),
        existing_cluster_config(),
    ]
    renders = [dev_render, prod_render, *map(render, configs)]
    return [
        r
        for result in renders
        for r in result.resources
        if r.custom and r.type.startswith(("aws:", "aws-native:"))
    ]


def test_every_aws_type_the_stack_creates_has_its_replacements_from_a_source(aws_resources):
    derived = json.loads(CREATE_ONLY_PATH.read_text())["types"]
    unsourced = {r.type for r in aws_resources} - derived.keys() - HAND_REPLACES.keys()
    assert not unsourced, f"map these to CloudFormation or give their source: {unsourced}"


def test_every_input_of_a_twin_is_mapped_or_said_to_be_left_out(aws_resources):
    names = {t: mapped for t, (_, mapped) in {**TWINS, **NAME_ONLY_TWINS}.items()}
    unmapped = {
        (r.type, key)
        for r in aws_resources
        if r.type in names
        for key in r.inputs
        if key not in names[r.type] and key not in LEFT_OUT.get(r.type, {})
    }
    assert not unmapped


def test_aws_native_replacements_agree_with_what_its_sdk_records(aws_resources):
    # Two readings of one CloudFormation schema: the SDK's replaceOnChanges and cfn-lint's copy.
    (cluster,) = {r.type: r for r in aws_resources if r.type.startswith("aws-native:")}.values()
    assert sorted(cluster.options["replaceOnChanges"]) == list(replace_triggers(cluster.type))


def test_terraform_updates_an_association_with_another_table_in_place():
    assert replace_triggers("aws:ec2/routeTableAssociation:RouteTableAssociation") == ("subnetId",)


def test_a_vpc_change_replaces_its_tables_associations_and_security_group_rules():
    head = dev_config()
    head["hyperpod-dpd:network"]["vpcCidr"] = "10.1.0.0/16"
    found = changes(dev_config(), head)
    for kind in (
        "aws:ec2/routeTable:RouteTable",
        "aws:ec2/routeTableAssociation:RouteTableAssociation",
        "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
        "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
        "aws:ec2/natGateway:NatGateway",
        "aws:ec2/vpcEndpoint:VpcEndpoint",
    ):
        # The rule from the VPC's range is named after it: removed, and another added.
        kept = [c for c in by_name(found, kind).values() if c.kind not in ("add", "remove")]
        assert kept and {c.kind for c in kept} == {"replace"}, kind
