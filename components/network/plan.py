"""How a VPC is carved per availability zone, once for the stack's life, and how its subnets
are tagged for Kubernetes.

The VPC splits into eighths: the AZ whose ID ends in -azN takes the eighth 7 - N for its private
subnet, and the top eighth holds the public subnets and EKS's own /28s (as hyperpod-eks-tf
plans). A subnet's place depends on the VPC and its AZ alone, so adding groups or AZs moves no
subnet. Stacks from the earlier bottom-up plan pin their subnets (spec.py).
"""

from dataclasses import dataclass
from ipaddress import IPv4Network

from components.core.findings import field_path
from components.network.spec import NetworkSpec

EIGHTHS = 8
# A p5-class node takes about 81 VPC addresses (its interfaces plus pod IPs); AWS keeps five
# addresses of every subnet.
ADDRESSES_PER_NODE = 81
RESERVED_ADDRESSES = 5
# EKS's control-plane subnets, as AWS's reference Terraform sizes them.
CONTROL_PLANE_PREFIX = 28
# The smallest VPC whose top eighth holds a /28 for each of the 16 subnets carved there.
SMALLEST_VPC_PREFIX = 20


class PlanError(ValueError):
    """The plan cannot carve a subnet; `field` is the setting to change."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class SubnetPlan:
    az_id: str
    public: IPv4Network
    private: IPv4Network
    # The EKS control plane's subnet in this AZ, if it has one: a /28 of its own, or `private`.
    control_plane: IPv4Network | None


def node_capacity(subnet: IPv4Network) -> int:
    return (subnet.num_addresses - RESERVED_ADDRESSES) // ADDRESSES_PER_NODE


def az_number(az_id: str) -> int:
    return int(az_id.rsplit("-az", 1)[1])


def control_plane_azs(network: NetworkSpec) -> list[str]:
    return network.control_plane_az_ids or network.availability_zone_ids[:2]


def _planned(vpc: IPv4Network, number: int) -> dict[str, IPv4Network]:
    eighths = list(vpc.subnets(prefixlen_diff=3))
    parts = list(eighths[-1].subnets(prefixlen_diff=5))
    return {
        "private": eighths[-1 - number],
        "public": parts[number],
        "controlPlane": next(parts[EIGHTHS + number].subnets(new_prefix=CONTROL_PLANE_PREFIX)),
    }


def _free(vpc: IPv4Network, size: int, taken: list[IPv4Network]) -> str:
    for candidate in vpc.subnets(new_prefix=size):
        if not any(candidate.overlaps(used) for used in taken):
            return f", such as {candidate}"
    return ""


def plan_subnets(network: NetworkSpec) -> list[SubnetPlan]:
    vpc, on_nodes = network.vpc_cidr, network.control_plane_on_node_subnets
    if vpc.prefixlen > SMALLEST_VPC_PREFIX:
        raise PlanError(
            "network.vpcCidr",
            f"{vpc} is too small; the plan gives each AZ an eighth of a /{SMALLEST_VPC_PREFIX} "
            f"or larger VPC (of a /16, a /19 for {node_capacity(IPv4Network('0.0.0.0/19'))} "
            "nodes)",
        )
    pins = {"private": network.private_subnet_cidrs, "public": network.public_subnet_cidrs}
    plans, placed = [], []
    for i, az in enumerate(network.availability_zone_ids):
        field = field_path("network", "availabilityZoneIds", i)
        if not 0 < az_number(az) < EIGHTHS:
            raise PlanError(field, f"{az}: the plan places AZ IDs -az1 to -az{EIGHTHS - 1} only")
        place = _planned(vpc, az_number(az))
        if az not in control_plane_azs(network) or on_nodes:
            del place["controlPlane"]
        placed += [
            (field, az, role, c) for role, c in place.items() if az not in pins.get(role, {})
        ]
        chosen = {role: pins.get(role, {}).get(az, cidr) for role, cidr in place.items()}
        shared = chosen["private"] if on_nodes and az in control_plane_azs(network) else None
        control_plane = chosen.get("controlPlane", shared)
        plans.append(SubnetPlan(az, chosen["public"], chosen["private"], control_plane))
    pinned = [(cidr, role, az) for role, cidrs in pins.items() for az, cidr in cidrs.items()]
    taken = [cidr for cidr, _, _ in pinned] + [cidr for *_, cidr in placed]
    for field, az, role, cidr in placed:
        for other, other_role, other_az in pinned:
            if cidr.overlaps(other):
                fix = f"pin one for it with {role}SubnetCidrs.{az}" + _free(
                    vpc, cidr.prefixlen, taken
                )
                raise PlanError(
                    field,
                    f"{az}'s {role} subnet, {cidr} in the plan, overlaps {other}, "
                    f"{other_role}SubnetCidrs.{other_az}; "
                    + ("set controlPlaneOnNodeSubnets" if role == "controlPlane" else fix),
                )
    return plans


def subnet_tags(cluster_name: str, *, public: bool) -> dict[str, str]:
    """Tags the AWS load balancer controller places load balancers by: without them an internal
    one lands in the wrong AZ, its targets `Target.NotInUse`."""
    role = "kubernetes.io/role/elb" if public else "kubernetes.io/role/internal-elb"
    return {role: "1", f"kubernetes.io/cluster/{cluster_name}": "shared"}
