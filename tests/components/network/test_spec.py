"""The network's settings refused in words, naming the full key."""

from ipaddress import IPv4Network
from typing import Any

import pytest

from components.network.plan import plan_subnets
from components.network.spec import NetworkSpec
from tests.components.network.test_checks import network_problems
from tests.support import dev_with, problem_for, stack_problems

REFUSED = [
    ({"network.vpcCidr": "127.0.0.0/16"}, "network.vpcCidr", "loopback"),
    ({"network.vpcCidr": "224.0.0.0/16"}, "network.vpcCidr", "multicast"),
    ({"network.vpcCidr": "169.254.0.0/16"}, "network.vpcCidr", "link-local"),
    (
        {"network.privateSubnetCidrs": {"usw2-az2": "240.0.0.0/20"}},
        "network.privateSubnetCidrs.usw2-az2",
        "reserved",
    ),
]


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_a_range_that_holds_no_host_network_is_refused(changes, key, says):
    assert says in problem_for(f"hyperpod-dpd:{key}", stack_problems(dev_with(changes)))


AZS = ["usw2-az2", "usw2-az3"]


def existing_network(**ids: Any) -> dict[str, Any]:
    """The dev stack's network as a VPC of its own, with these of its IDs changed."""
    subnets = {"usw2-az2": "subnet-0123456789abcdef0", "usw2-az3": "subnet-0123456789abcdef1"}
    existing = {"vpcId": "vpc-0123456789abcdef0", "privateSubnetIds": subnets, **ids}
    return {"network": {"availabilityZoneIds": AZS, "existing": existing}}


REFUSED_IN_WORDS = {
    "a VPC range that is not one": (
        {"network.vpcCidr": "x"},
        "hyperpod-dpd:network.vpcCidr: 'x' is not allowed; must be an IPv4 CIDR block such as "
        "10.0.0.0/16",
    ),
    "a VPC range written as a number": (
        {"network.vpcCidr": 5},
        "hyperpod-dpd:network.vpcCidr: 5 is not allowed; must be an IPv4 CIDR block such as "
        "10.0.0.0/16",
    ),
    "an AZ name where an AZ ID goes": (
        {"cluster.instanceGroups[0].availabilityZoneId": "us-west-2b"},
        "hyperpod-dpd:cluster.instanceGroups[0].availabilityZoneId: 'us-west-2b' is not "
        "allowed; must be an AZ ID such as usw2-az2 (the region's short code, -az and a "
        "number; `aws ec2 describe-availability-zones` lists them as ZoneId), not an AZ name "
        "such as us-west-2b",
    ),
    "a VPC's CIDR where its ID goes": (
        existing_network(vpcId="10.0.0.0/16"),
        "hyperpod-dpd:network.existing.vpcId: '10.0.0.0/16' is not allowed; must be a VPC ID: "
        "vpc- and 8 to 17 lowercase hex digits, such as vpc-0123456789abcdef0",
    ),
    "a subnet's name where its ID goes": (
        existing_network(privateSubnetIds={"usw2-az2": "private-a"}),
        "hyperpod-dpd:network.existing.privateSubnetIds.usw2-az2: 'private-a' is not allowed; "
        "must be a subnet ID: subnet- and 8 to 17 lowercase hex digits, such as "
        "subnet-0123456789abcdef0",
    ),
    "a security group's name where its ID goes": (
        existing_network(securityGroupId="default"),
        "hyperpod-dpd:network.existing.securityGroupId: 'default' is not allowed; must be a "
        "security group ID: sg- and 8 to 17 lowercase hex digits, such as sg-0123456789abcdef0",
    ),
}


@pytest.mark.parametrize("case", REFUSED_IN_WORDS)
def test_a_refusal_says_what_is_wrong(case):
    changes, line = REFUSED_IN_WORDS[case]
    assert stack_problems(dev_with(changes)) == [line]


@pytest.mark.parametrize("cidr", ["100.64.0.0/16", "172.31.0.0/16"])
def test_private_and_shared_ranges_make_a_vpc(cidr):
    assert network_problems({"network.vpcCidr": cidr}) == []
    network = NetworkSpec.model_validate({"vpcCidr": cidr, "availabilityZoneIds": AZS})
    assert all(p.private.subnet_of(IPv4Network(cidr)) for p in plan_subnets(network))
