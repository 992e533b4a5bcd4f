import re
from ipaddress import IPv4Network

import pytest

from components.network.plan import (
    PlanError,
    node_capacity,
    plan_subnets,
    private_prefix,
    subnet_tags,
)


@pytest.mark.parametrize(
    "nodes, prefix", [(0, 24), (1, 21), (2, 21), (16, 21), (17, 20), (32, 20), (33, 19), (100, 18)]
)
def test_private_subnets_hold_81_addresses_a_node_and_never_less_than_a_21_per_16(nodes, prefix):
    assert private_prefix(nodes) == prefix
    if nodes:
        addresses = 2 ** (32 - prefix) - 5
        assert addresses >= 81 * nodes
        assert 2 ** (32 - prefix) >= 2048 * -(-nodes // 16)


def test_every_az_gets_a_public_and_a_private_subnet_inside_the_vpc_without_overlap():
    vpc = IPv4Network("10.0.0.0/16")
    plans = plan_subnets(vpc, ["usw2-az2", "usw2-az3"], {"usw2-az2": 18}, {})
    assert [p.az_id for p in plans] == ["usw2-az2", "usw2-az3"]
    subnets = [s for p in plans for s in (p.public, p.private)]
    assert all(s.subnet_of(vpc) for s in subnets)
    assert not any(a.overlaps(b) for i, a in enumerate(subnets) for b in subnets[i + 1 :])
    assert plans[0].private.prefixlen == 20
    assert plans[1].private.prefixlen == 24
    assert {p.public.prefixlen for p in plans} == {24}


def test_fixed_private_cidrs_are_kept_and_the_rest_is_carved_around_them():
    fixed = {"usw2-az2": IPv4Network("10.0.0.0/21")}
    plans = plan_subnets(IPv4Network("10.0.0.0/16"), ["usw2-az2", "usw2-az3"], {}, fixed)
    assert plans[0].private == fixed["usw2-az2"]
    assert not any(p.public.overlaps(fixed["usw2-az2"]) for p in plans)


def test_a_vpc_too_small_for_the_nodes_is_refused():
    with pytest.raises(PlanError, match=re.escape("10.0.0.0/22 is smaller than the /20")):
        plan_subnets(IPv4Network("10.0.0.0/22"), ["a1-az1", "a1-az2"], {"a1-az1": 20}, {})


def test_a_full_vpc_is_refused():
    with pytest.raises(PlanError, match="no room left"):
        plan_subnets(IPv4Network("10.0.0.0/21"), ["a1-az1", "a1-az2"], {"a1-az1": 2}, {})


@pytest.mark.parametrize(
    "cidr, nodes",
    [("10.0.0.0/24", 0), ("10.0.0.0/21", 16), ("10.0.0.0/20", 32), ("10.0.0.0/19", 64)],
)
def test_node_capacity_is_the_inverse_of_the_sizing_rule(cidr, nodes):
    assert node_capacity(IPv4Network(cidr)) == nodes


def test_subnet_tags_place_load_balancers_next_to_the_nodes():
    assert subnet_tags("dpd", public=False) == {
        "kubernetes.io/role/internal-elb": "1",
        "kubernetes.io/cluster/dpd": "shared",
    }
    assert subnet_tags("dpd", public=True)["kubernetes.io/role/elb"] == "1"
