"""The network's rules on the settings of the dev stack changed, each problem keyed as the
program keys it (the full key under the project)."""

from typing import Any

import pytest

from components.cluster.instance_groups import nodes_by_az
from components.network.checks import check_network
from infra.stack_settings import StackSettings
from tests.support import dev_config, dev_with, problem_for, stack_problems


def _network_rules(stack: StackSettings) -> list:
    return check_network(stack.network, nodes_by_az(stack.cluster.instance_groups))


def network_problems(changes: dict[str, Any], level: str = "error") -> list[str]:
    """What the network's rules say of the dev stack with `changes`, at `level`."""
    return stack_problems(dev_with(changes), _network_rules, level)


def test_the_network_needs_two_azs():
    found = network_problems({"network.availabilityZoneIds": ["usw2-az2"]})
    assert "EKS needs two or more distinct AZ IDs" in problem_for(
        "hyperpod-dpd:network.availabilityZoneIds", found
    )


def test_a_subnet_too_small_for_its_nodes_is_refused():
    found = network_problems({"network.privateSubnetCidrs": {"usw2-az2": "10.0.0.0/25"}})
    assert problem_for("hyperpod-dpd:network.privateSubnetCidrs.usw2-az2", found).endswith(
        "10.0.0.0/25 holds 1 nodes (about 81 addresses a node), and the instance groups put 3 "
        "in usw2-az2"
    )


def test_a_24_pinned_for_its_nodes_passes_and_warns_that_growing_past_it_replaces_it():
    changes = {"network.privateSubnetCidrs": {"usw2-az2": "10.0.0.0/24"}}
    assert network_problems(changes) == []
    assert network_problems(changes, "warning") == [
        "hyperpod-dpd:network.privateSubnetCidrs.usw2-az2: 10.0.0.0/24 holds 3 nodes (about 81 "
        "addresses a node), and the instance groups put 3 in usw2-az2; more nodes than it holds "
        "need a larger subnet, and changing it replaces the subnet and the HyperPod cluster (all "
        "its nodes, for hours)"
    ]


def test_overlapping_subnets_are_refused():
    cidrs = {"usw2-az2": "10.0.0.0/21", "usw2-az3": "10.0.4.0/22"}
    found = network_problems({"network.privateSubnetCidrs": cidrs})
    assert "10.0.4.0/22 overlaps 10.0.0.0/21 of network.privateSubnetCidrs.usw2-az2" in problem_for(
        "hyperpod-dpd:network.privateSubnetCidrs.usw2-az3", found
    )


def test_a_subnet_outside_the_vpc_is_refused():
    found = network_problems({"network.privateSubnetCidrs": {"usw2-az2": "10.9.0.0/21"}})
    assert "is not inside vpcCidr 10.0.0.0/16" in problem_for(
        "hyperpod-dpd:network.privateSubnetCidrs.usw2-az2", found
    )


def test_a_vpc_too_small_for_the_subnets_is_refused():
    found = network_problems({"network.vpcCidr": "10.0.0.0/22"})
    assert "10.0.0.0/22 is too small" in problem_for("hyperpod-dpd:network.vpcCidr", found)


def test_the_network_is_required_to_build_a_cluster():
    config = dev_config()
    del config["hyperpod-dpd:network"]
    assert stack_problems(config, _network_rules) == [
        "hyperpod-dpd:network: is required unless cluster.existing names a cluster"
    ]


REFUSED = [
    (
        {"network.controlPlaneAzIds": ["usw2-az2", "usw2-az4"]},
        "network.controlPlaneAzIds[1]",
        "usw2-az4 is not in availabilityZoneIds",
    ),
    (
        {"network.controlPlaneAzIds": ["usw2-az2"]},
        "network.controlPlaneAzIds",
        "EKS needs two or more distinct AZ IDs",
    ),
    (
        {
            "network.publicSubnetCidrs": {"usw2-az2": "10.0.0.0/24"},
            "network.privateSubnetCidrs": {"usw2-az2": "10.0.0.0/21"},
        },
        "network.publicSubnetCidrs.usw2-az2",
        "10.0.0.0/24 overlaps 10.0.0.0/21 of network.privateSubnetCidrs.usw2-az2",
    ),
    (
        {"network.availabilityZoneIds": ["usw2-az2", "usw2-az3", "usw2-az2"]},
        "network.availabilityZoneIds[2]",
        "already availabilityZoneIds[0]",
    ),
    (
        {
            "network": {
                "existing": {
                    "vpcId": "vpc-0123456789abcdef0",
                    "privateSubnetIds": {
                        "usw2-az2": "subnet-0123456789abcdef0",
                        "usw2-az3": "subnet-0123456789abcdef0",
                    },
                }
            }
        },
        "network.existing.privateSubnetIds.usw2-az3",
        "already the subnet of usw2-az2",
    ),
]


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_an_az_or_subnet_named_twice_is_refused(changes, key, says):
    assert says in problem_for(f"hyperpod-dpd:{key}", network_problems(changes))
