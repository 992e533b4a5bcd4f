"""The network's rules: AZs named once, subnets that fit the VPC and the nodes in them.
Each Finding's field is its setting's path under the project (`network.vpcCidr`)."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import combinations

from components.core.findings import Finding, error, field_path
from components.core.reuses import reuses
from components.network.plan import PlanError, node_capacity, plan_subnets
from components.network.spec import NetworkSpec


def _fixed_subnets(network: NetworkSpec, nodes: Mapping[str, int]) -> list[Finding]:
    found = []
    fixed = network.private_subnet_cidrs
    for az, cidr in fixed.items():
        field = field_path("network", "privateSubnetCidrs", az)
        if az not in network.availability_zone_ids:
            found.append(error("unknown-az", field, f"{az} is not in availabilityZoneIds"))
        elif not cidr.subnet_of(network.vpc_cidr):
            found.append(
                error("outside-vpc", field, f"{cidr} is not inside vpcCidr {network.vpc_cidr}")
            )
        elif node_capacity(cidr) < nodes.get(az, 0):
            found.append(
                error(
                    "subnet-too-small",
                    field,
                    f"{cidr} holds {node_capacity(cidr)} nodes, but the instance groups put "
                    f"{nodes[az]} in {az} (about 81 addresses a node, a /21 per 16 nodes)",
                )
            )
    for (az_a, a), (az_b, b) in combinations(fixed.items(), 2):
        if a.overlaps(b):
            field = field_path("network", "privateSubnetCidrs", az_b)
            found.append(error("overlapping-cidrs", field, f"{b} overlaps {a} of {az_a}"))
    return found


def _repeated_azs(network: NetworkSpec) -> list[Finding]:
    """Each AZ ID names one subnet pair, and each existing subnet lies in one AZ."""
    found = [
        error(
            "repeated-az",
            field_path("network", "availabilityZoneIds", i),
            f"{network.availability_zone_ids[i]} is already availabilityZoneIds[{first}]; list "
            "each AZ ID once",
        )
        for i, first in reuses(network.availability_zone_ids)
    ]
    if network.existing is not None:
        subnets = network.existing.private_subnet_ids
        azs = list(subnets)
        found += [
            error(
                "subnet-in-two-azs",
                field_path("network", "existing", "privateSubnetIds", azs[i]),
                f"{subnets[azs[i]]} is already the subnet of {azs[first]}; a subnet lies in "
                "one AZ, so each AZ needs a subnet of its own",
            )
            for i, first in reuses(list(subnets.values()))
        ]
    return found


def _new_network(network: NetworkSpec, nodes: Mapping[str, int]) -> list[Finding]:
    azs = network.availability_zone_ids
    if len(set(azs)) < 2:
        return [
            error(
                "too-few-azs",
                "network.availabilityZoneIds",
                f"{azs} is not allowed; EKS needs two or more distinct AZ IDs",
            )
        ]
    found = _fixed_subnets(network, nodes)
    if not found:
        try:
            plan_subnets(network.vpc_cidr, azs, nodes, network.private_subnet_cidrs)
        except PlanError as full:
            found.append(error("vpc-too-small", "network.vpcCidr", str(full)))
    return found


def check_network(network: NetworkSpec | None, nodes_by_az: Mapping[str, int]) -> list[Finding]:
    """The network of a cluster this stack builds, with its instance groups' nodes per AZ."""
    if network is None:
        return [
            error("no-network", "network", "is required unless cluster.existing names a cluster")
        ]
    found = _repeated_azs(network)
    if network.existing is None:
        return found + _new_network(network, nodes_by_az)
    if len(network.existing.private_subnet_ids) < 2:
        subnets = "network.existing.privateSubnetIds"
        found.append(
            error("too-few-subnets", subnets, "EKS needs private subnets in two or more AZs")
        )
    return found
