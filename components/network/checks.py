"""The network's rules: AZs named once, subnets that fit the VPC and the nodes in them.
Each Finding's field is its setting's path under the project (`network.vpcCidr`)."""

from collections.abc import Mapping
from itertools import combinations

from components.core.findings import Finding, error, field_path, warning
from components.core.reuses import reuses
from components.network.plan import (
    ADDRESSES_PER_NODE,
    PlanError,
    SubnetPlan,
    node_capacity,
    plan_subnets,
)
from components.network.spec import NetworkSpec


def _pinned_subnets(network: NetworkSpec) -> list[Finding]:
    """Pinned CIDRs and control-plane AZs name listed AZs, the CIDRs lie in the VPC and overlap
    nothing, and the control plane has two AZs or more."""
    pinned = [
        (field_path("network", key, az), az, cidr)
        for key in ("privateSubnetCidrs", "publicSubnetCidrs")
        for az, cidr in network.model_dump(by_alias=True)[key].items()
    ]
    control = network.control_plane_az_ids
    named = [(f, az) for f, az, _ in pinned] + [
        (field_path("network", "controlPlaneAzIds", i), az) for i, az in enumerate(control)
    ]
    found = [
        error("unknown-az", field, f"{az} is not in availabilityZoneIds")
        for field, az in named
        if az not in network.availability_zone_ids
    ]
    found += [
        error("outside-vpc", field, f"{cidr} is not inside vpcCidr {network.vpc_cidr}")
        for field, _, cidr in pinned
        if not cidr.subnet_of(network.vpc_cidr)
    ]
    for (field_a, _, a), (field_b, _, b) in combinations(pinned, 2):
        if a.overlaps(b):
            found.append(error("overlapping-cidrs", field_b, f"{b} overlaps {a} of {field_a}"))
    if control and len(set(control)) < 2:
        message = f"{control} is not allowed; EKS needs two or more distinct AZ IDs"
        found.append(error("too-few-azs", "network.controlPlaneAzIds", message))
    return found


def _subnet_capacity(plans: list[SubnetPlan], nodes: Mapping[str, int]) -> list[Finding]:
    """Each AZ's nodes fit its private subnet; the render warns when growth nears its end,
    since a larger subnet replaces it and the HyperPod cluster with it."""
    found = []
    for plan in plans:
        held, put = node_capacity(plan.private), nodes.get(plan.az_id, 0)
        field = field_path("network", "privateSubnetCidrs", plan.az_id)
        said = (
            f"{plan.private} holds {held} nodes (about {ADDRESSES_PER_NODE} addresses a node), "
            f"and the instance groups put {put} in {plan.az_id}"
        )
        if put > held:
            found.append(error("subnet-too-small", field, said))
        elif put > held * 3 // 4:
            found.append(
                warning(
                    "subnet-nearly-full",
                    field,
                    f"{said}; more nodes than it holds need a larger subnet, and changing it "
                    "replaces the subnet and the HyperPod cluster (all its nodes, for hours)",
                )
            )
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


def check_network(network: NetworkSpec | None, nodes_by_az: Mapping[str, int]) -> list[Finding]:
    """The network of a cluster this stack builds, with its instance groups' nodes per AZ."""
    if network is None:
        return [
            error("no-network", "network", "is required unless cluster.existing names a cluster")
        ]
    found = _repeated_azs(network)
    if network.existing is None:
        azs = network.availability_zone_ids
        if len(set(azs)) < 2:
            message = f"{azs} is not allowed; EKS needs two or more distinct AZ IDs"
            return [*found, error("too-few-azs", "network.availabilityZoneIds", message)]
        pinned = _pinned_subnets(network)
        if pinned:
            return found + pinned
        try:
            return found + _subnet_capacity(plan_subnets(network), nodes_by_az)
        except PlanError as refused:
            return [*found, error("no-room", refused.field, str(refused))]
    if len(network.existing.private_subnet_ids) < 2:
        subnets = "network.existing.privateSubnetIds"
        found.append(
            error("too-few-subnets", subnets, "EKS needs private subnets in two or more AZs")
        )
    return found
