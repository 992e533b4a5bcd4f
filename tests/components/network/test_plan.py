import itertools
import random
import re
from ipaddress import IPv4Network

import pytest

from components.network.plan import PlanError, node_capacity, plan_subnets, subnet_tags
from components.network.spec import NetworkSpec

AZS = [f"use1-az{n}" for n in range(1, 8)]
# Every ordered list of two or more of them, sampled: what a stack may list, in any order.
LISTS = random.Random(7).sample(
    [list(p) for k in range(2, 5) for p in itertools.permutations(AZS, k)], 300
)
VPCS = ["10.0.0.0/16", "10.64.0.0/16", "172.16.0.0/18", "192.168.0.0/20"]


def network(azs, vpc="10.0.0.0/16", **pins) -> NetworkSpec:
    return NetworkSpec.model_validate({"vpcCidr": vpc, "availabilityZoneIds": azs, **pins})


def by_az(spec: NetworkSpec) -> dict:
    return {p.az_id: p for p in plan_subnets(spec)}


def subnets(plans) -> list[IPv4Network]:
    found = [s for p in plans for s in (p.public, p.private, p.control_plane) if s]
    # On node subnets, the control plane is its AZ's private subnet, not a subnet of its own.
    return list(dict.fromkeys(found))


@pytest.mark.parametrize("vpc", VPCS)
def test_every_subnet_lies_in_the_vpc_and_none_overlap(vpc):
    for azs in LISTS:
        found = subnets(plan_subnets(network(azs, vpc)))
        assert all(s.subnet_of(IPv4Network(vpc)) for s in found)
        assert not any(a.overlaps(b) for a, b in itertools.combinations(found, 2)), azs


@pytest.mark.parametrize("vpc", VPCS)
def test_an_azs_subnets_depend_on_the_az_alone_so_adding_or_reordering_azs_moves_none(vpc):
    # Public and private subnets: any list holding the AZ gives it the same ones.
    first: dict = {}
    for azs in LISTS:
        for az, plan in by_az(network(azs, vpc)).items():
            assert first.setdefault(az, (plan.public, plan.private)) == (plan.public, plan.private)


def test_the_control_plane_keeps_its_subnets_in_its_azs_whatever_azs_are_added():
    pinned = {"controlPlaneAzIds": ["use1-az4", "use1-az6"]}
    seen = set()
    for azs in LISTS:
        listed = [
            *pinned["controlPlaneAzIds"],
            *(a for a in azs if a not in ("use1-az4", "use1-az6")),
        ]
        plans = plan_subnets(network(listed, **pinned))
        seen.add(tuple(p.control_plane for p in plans if p.control_plane))
    (control_plane,) = seen
    assert [s.prefixlen for s in control_plane] == [28, 28]


def test_without_control_plane_azs_the_first_two_listed_hold_it():
    plans = plan_subnets(network(["use1-az4", "use1-az6", "use1-az1"]))
    assert [p.control_plane is not None for p in plans] == [True, True, False]


def test_a_16_gives_each_az_a_19_for_101_nodes_and_its_public_subnet_a_24():
    plan = by_az(network(["usw2-az2", "usw2-az3"]))["usw2-az2"]
    assert plan.private.prefixlen == 19 and node_capacity(plan.private) == 101
    assert plan.public.prefixlen == 24


# The subnets of stacks deployed under the earlier plan (8624105), which sized each AZ's subnet
# for its nodes and packed them from the bottom of the VPC: dev and prod as shipped, and a
# stack with 40 nodes in one AZ.
EARLIER = [
    (
        "10.0.0.0/16",
        {"usw2-az2": "10.0.0.0/21", "usw2-az3": "10.0.9.0/24"},
        {"usw2-az2": "10.0.8.0/24", "usw2-az3": "10.0.10.0/24"},
    ),
    (
        "10.64.0.0/16",
        {"use1-az4": "10.64.0.0/21", "use1-az6": "10.64.9.0/24"},
        {"use1-az4": "10.64.8.0/24", "use1-az6": "10.64.10.0/24"},
    ),
    (
        "10.0.0.0/16",
        {"usw2-az1": "10.0.0.0/19", "usw2-az2": "10.0.33.0/24"},
        {"usw2-az1": "10.0.32.0/24", "usw2-az2": "10.0.34.0/24"},
    ),
]


def _plan_pinning_suggestions(vpc: str, azs: list[str], pins: dict) -> dict:
    """The plan, pinning each free block a refusal suggests, as its reader would."""
    while True:
        try:
            return by_az(network(azs, vpc, **pins))
        except PlanError as refused:
            az, free = re.search(r"(\S+)'s private subnet.*such as (\S+)$", str(refused)).groups()
            pins = {**pins, "privateSubnetCidrs": {**pins["privateSubnetCidrs"], az: free}}


@pytest.mark.parametrize("vpc, private, public", EARLIER)
def test_a_stack_pinned_to_its_earlier_subnets_keeps_them_and_any_az_added_goes_clear(
    vpc, private, public
):
    pins = {
        "privateSubnetCidrs": private,
        "publicSubnetCidrs": public,
        "controlPlaneOnNodeSubnets": True,
    }
    region = next(iter(private)).split("-")[0]
    others = [f"{region}-az{n}" for n in range(1, 7) if f"{region}-az{n}" not in private]
    for k in range(len(others) + 1):
        for added in itertools.combinations(others, k):
            plans = _plan_pinning_suggestions(vpc, [*private, *added], pins)
            for az in private:
                assert str(plans[az].private) == private[az]
                assert str(plans[az].public) == public[az]
                # EKS stays on the private subnets it was created on.
                assert plans[az].control_plane == plans[az].private
            assert all(plans[az].control_plane is None for az in added)
            found = subnets(plans.values())
            assert not any(a.overlaps(b) for a, b in itertools.combinations(found, 2))


def test_an_az_whose_planned_subnet_meets_a_pinned_one_is_refused_with_a_free_block_named():
    pins = {"privateSubnetCidrs": {"usw2-az2": "10.0.0.0/18"}}
    with pytest.raises(PlanError) as refused:
        plan_subnets(network(["usw2-az2", "usw2-az6"], **pins))
    assert refused.value.field == "network.availabilityZoneIds[1]"
    assert str(refused.value) == (
        "usw2-az6's private subnet, 10.0.32.0/19 in the plan, overlaps 10.0.0.0/18, "
        "privateSubnetCidrs.usw2-az2; pin one for it with privateSubnetCidrs.usw2-az6, such as "
        "10.0.64.0/19"
    )


def test_a_vpc_too_small_for_eighths_is_refused():
    with pytest.raises(PlanError, match=re.escape("10.0.0.0/21 is too small")) as refused:
        plan_subnets(network(["usw2-az1", "usw2-az2"], "10.0.0.0/21"))
    assert refused.value.field == "network.vpcCidr"


@pytest.mark.parametrize(
    "cidr, nodes", [("10.0.0.0/24", 3), ("10.0.0.0/21", 25), ("10.0.0.0/19", 101)]
)
def test_node_capacity_is_81_addresses_a_node_after_the_5_aws_keeps(cidr, nodes):
    assert node_capacity(IPv4Network(cidr)) == nodes


def test_subnet_tags_place_load_balancers_next_to_the_nodes():
    assert subnet_tags("dpd", public=False) == {
        "kubernetes.io/role/internal-elb": "1",
        "kubernetes.io/cluster/dpd": "shared",
    }
    assert subnet_tags("dpd", public=True)["kubernetes.io/role/elb"] == "1"
