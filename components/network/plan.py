"""How a VPC is carved per availability zone, and how its subnets are tagged for Kubernetes."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from ipaddress import IPv4Network

PUBLIC_PREFIX = 24
# AZs without nodes still host EKS control-plane interfaces and internal load balancers.
IDLE_PRIVATE_PREFIX = 24
# A p5-class node takes about 81 VPC addresses (its interfaces plus pod IPs).
ADDRESSES_PER_NODE = 81
# AWS keeps five addresses of every subnet.
RESERVED_ADDRESSES = 5
# Never less than a /21 (2,048 addresses) per 16 nodes, which leaves room to replace nodes.
NODES_PER_21 = 16


class PlanError(ValueError):
    """The VPC cannot hold the subnets the plan needs."""


@dataclass(frozen=True)
class SubnetPlan:
    az_id: str
    public: IPv4Network
    private: IPv4Network


def private_prefix(nodes: int) -> int:
    """The prefix length of the smallest private subnet for `nodes` nodes."""
    if nodes == 0:
        return IDLE_PRIVATE_PREFIX
    addresses = max(
        nodes * ADDRESSES_PER_NODE + RESERVED_ADDRESSES,
        2**11 * math.ceil(nodes / NODES_PER_21),
    )
    return 32 - math.ceil(math.log2(addresses))


def _allocate(vpc: IPv4Network, prefix: int, taken: list[IPv4Network]) -> IPv4Network:
    if prefix < vpc.prefixlen:
        raise PlanError(f"{vpc} is smaller than the /{prefix} subnet it must hold")
    for candidate in vpc.subnets(new_prefix=prefix):
        if not any(candidate.overlaps(used) for used in taken):
            return candidate
    raise PlanError(f"{vpc} has no room left for a /{prefix} subnet")


def plan_subnets(
    vpc: IPv4Network,
    az_ids: Sequence[str],
    nodes_by_az: Mapping[str, int],
    fixed_private: Mapping[str, IPv4Network],
) -> list[SubnetPlan]:
    """A public and a private subnet per AZ, largest blocks first so they pack without gaps."""
    taken = list(fixed_private.values())
    requests = [(private_prefix(nodes_by_az.get(az, 0)), az, "private") for az in az_ids]
    requests = [r for r in requests if r[1] not in fixed_private]
    requests += [(PUBLIC_PREFIX, az, "public") for az in az_ids]
    chosen: dict[tuple[str, str], IPv4Network] = {
        (az, "private"): cidr for az, cidr in fixed_private.items()
    }
    for prefix, az, kind in sorted(requests, key=lambda r: (r[0], az_ids.index(r[1]), r[2])):
        chosen[(az, kind)] = _allocate(vpc, prefix, taken)
        taken.append(chosen[(az, kind)])
    return [SubnetPlan(az, chosen[(az, "public")], chosen[(az, "private")]) for az in az_ids]


def node_capacity(subnet: IPv4Network) -> int:
    """How many nodes a private subnet is large enough for."""
    nodes = 0
    while private_prefix(nodes + 1) >= subnet.prefixlen:
        nodes += 1
    return nodes


def subnet_tags(cluster_name: str, *, public: bool) -> dict[str, str]:
    """Tags the AWS load balancer controller reads to place load balancers.

    Without them an internal load balancer lands in the wrong AZ and its targets stay
    `Target.NotInUse`.
    """
    role = "kubernetes.io/role/elb" if public else "kubernetes.io/role/internal-elb"
    return {role: "1", f"kubernetes.io/cluster/{cluster_name}": "shared"}
