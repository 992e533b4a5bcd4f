"""The destroy's waves, as Pulumi's engine schedules them, over resources.json documents."""

import pytest

from tests.support import config_file, dev_config
from tools.cli import main
from tools.render.destroy_order import dependencies, destroy_lines, destroy_waves


def resource(name, *deps, custom=True, parent=None, **options):
    return {
        "urn": name,
        "type": f"test:index:{'Thing' if custom else 'Component'}",
        "name": name,
        "custom": custom,
        "parent": parent,
        "provider": None,
        "dependencies": list(deps),
        "propertyDependencies": {},
        "options": options,
    }


def test_a_resource_goes_as_late_as_its_longest_chain_allows():
    # The association depends on nothing long, but the engine still deletes it only after
    # everything deeper: order comes from chains, not from who depends on whom.
    vpc = resource("vpc")
    subnet = resource("subnet", "vpc")
    association = resource("association", "subnet")
    cluster = resource("cluster", "subnet")
    endpoint = resource("endpoint", "cluster")
    waves = destroy_waves([vpc, subnet, association, cluster, endpoint])
    assert waves == [["endpoint"], ["association", "cluster"], ["subnet"], ["vpc"]]


def test_depending_on_a_component_waits_for_its_children():
    network = resource("network", custom=False)
    route = resource("route", parent="network")
    cluster = resource("cluster", "network")
    waves = destroy_waves([network, route, cluster])
    assert waves.index(["cluster"]) < waves.index(["route"]) < waves.index(["network"])


def test_a_cycle_is_refused_rather_than_ordered():
    with pytest.raises(ValueError, match="form a cycle"):
        destroy_waves([resource("a", "b"), resource("b", "a")])


def test_the_lines_say_which_deletes_are_skipped():
    workspace = resource("workspace")
    dashboard = resource("dashboard", deletedWith="workspace")
    weights = resource("weights", retainOnDelete=True)
    lines = destroy_lines([workspace, dashboard, weights])
    assert lines == [
        "wave 1:",
        "  test:index:Thing  dashboard  (deleted with workspace)",
        "wave 2:",
        "  test:index:Thing  weights  (retainOnDelete: left in place)",
        "  test:index:Thing  workspace",
    ]


def test_a_remote_component_is_shown_where_its_providers_resources_are_gone():
    # pulumi-eks' Cluster: its children are made by its provider, so the render holds none;
    # a local component, whose children are in the render, calls no provider and is left out.
    subnet = resource("subnet")
    eks = resource("eks", "subnet", custom=False)
    local = resource("local", custom=False)
    child = resource("child", parent="local")
    addon = resource("addon", "eks")
    lines = destroy_lines([subnet, eks, local, child, addon])
    assert lines == [
        "wave 1:",
        "  test:index:Thing  addon",
        "wave 2:",
        "  test:index:Component  eks  (remote component: its provider's resources, not in the "
        "render, are deleted by here)",
        "  test:index:Thing  child",
        "wave 3:",
        "  test:index:Thing  subnet",
    ]


PLUMBING = (
    "aws:ec2/routeTableAssociation:RouteTableAssociation",
    "aws:ec2/routeTable:RouteTable",
    "aws:ec2/natGateway:NatGateway",
    "aws:ec2/vpcEndpoint:VpcEndpoint",
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
)


@pytest.fixture(scope="module")
def dev(dev_render):
    return [r.as_json() for r in dev_render.resources]


def transitive_dependencies(resources, urn: str) -> set[str]:
    """Everything `urn` waits for, directly or through others: what a destroy deletes after it."""
    graph = dependencies(resources)
    found: set[str] = set()
    todo = list(graph[urn])
    while todo:
        dep = todo.pop()
        if dep not in found:
            found.add(dep)
            todo += graph[dep]
    return found


def test_the_clusters_and_every_endpoint_wait_for_the_network_plumbing(dev):
    plumbing = {r["urn"] for r in dev if r["type"] in PLUMBING}
    # Two AZs: 4 associations, 3 route tables, 1 NAT, the S3 endpoint and 6 EFA rules.
    assert len(plumbing) == 15
    served = [
        r
        for r in dev
        if r["type"]
        in (
            "aws-native:sagemaker:Cluster",
            "eks:index:Cluster",
            "kubernetes:inference.sagemaker.aws.amazon.com/v1:InferenceEndpointConfig",
        )
    ]
    assert len(served) == 3
    for r in served:
        assert plumbing <= transitive_dependencies(dev, r["urn"]), r["name"]


def test_the_destroy_deletes_the_network_after_the_clusters_and_endpoints(dev):
    waves = destroy_waves(dev)
    wave_of = {urn: n for n, wave in enumerate(waves) for urn in wave}
    by_type = {}
    for r in dev:
        by_type.setdefault(r["type"], []).append(wave_of[r["urn"]])
    last_served = max(
        *by_type["aws-native:sagemaker:Cluster"],
        *by_type["eks:index:Cluster"],
        *by_type["pulumi:providers:kubernetes"],
    )
    assert all(wave > last_served for kind in PLUMBING for wave in by_type[kind])
    # The endpoint goes first, before anything it runs on.
    assert by_type["kubernetes:inference.sagemaker.aws.amazon.com/v1:InferenceEndpointConfig"] == [
        0
    ]


def test_the_command_prints_the_dev_stack_endpoint_first_and_the_vpc_last(capsys):
    assert main(["destroy-order", "--stack", "dev"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:2] == [
        "wave 1:",
        "  kubernetes:inference.sagemaker.aws.amazon.com/v1:InferenceEndpointConfig  "
        "default/dpd-test",
    ]
    assert lines[-1] == "  aws:ec2/vpc:Vpc  network"


def test_the_command_refuses_an_invalid_stack_in_one_line(tmp_path, capsys):
    config = dev_config()
    config["hyperpod-dpd:endpoints"][0]["routingThreshold"] = -1
    assert main(["destroy-order", "--config-file", config_file(tmp_path, config)]) == 2
    assert "routingThreshold: -1 is not allowed" in capsys.readouterr().err
