"""The typed description of the network: a new VPC carved per availability zone, or yours."""

import re
from ipaddress import IPv4Network
from typing import Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, Field

from components.core.cidrs import NEVER_ROUTED, special_range
from components.core.shaped import resource_id, shaped_str
from components.core.spec import Spec

# The sizes AWS allows for a VPC's IPv4 CIDR block, and a subnet's: /16 to /28 (EC2 API
# Reference, CreateVpc).
CIDR_PREFIX_RANGE = (16, 28)


def _aws_cidr_size(network: IPv4Network) -> IPv4Network:
    low, high = CIDR_PREFIX_RANGE
    if not low <= network.prefixlen <= high:
        raise ValueError(f"must be a block from /{low} to /{high}, the sizes AWS allows")
    return network


def _host_range(network: IPv4Network) -> IPv4Network:
    # AWS recommends the RFC 1918 ranges for VPCs (Amazon VPC User Guide, "VPC CIDR blocks");
    # a special-purpose range holds no host network at all.
    special = special_range(network, NEVER_ROUTED)
    if special:
        raise ValueError(
            f"lies in the {special} range, which holds no host network; use a private range "
            "such as 10.0.0.0/16"
        )
    return network


def _written_as_text(value: object) -> object:
    # pydantic reads the number 5 as the address 0.0.0.5/32.
    if isinstance(value, (int, float)):
        raise ValueError("must be an IPv4 CIDR block such as 10.0.0.0/16")
    return value


AwsCidr = Annotated[
    IPv4Network,
    BeforeValidator(_written_as_text),
    AfterValidator(_aws_cidr_size),
    AfterValidator(_host_range),
]
# An AZ ID (`usw2-az2`) names the same physical zone in every account; an AZ name
# (`us-west-2b`, the Region's name and a letter) is mapped to a zone per account (EC2 User
# Guide, "Availability Zone IDs"). components/network/zones.py resolves one to the other.
AZ_ID = r"^[a-z]{2,4}[0-9]-az[0-9]+$"
AZ_NAME = r"^[a-z]{2}(-[a-z]+)+-[0-9]+[a-z]$"
AzId = shaped_str(
    AZ_ID,
    "must be an AZ ID such as usw2-az2 (the region's short code, -az and a number; "
    "`aws ec2 describe-availability-zones` lists them as ZoneId), not an AZ name such as "
    "us-west-2b",
)


def is_az_id(zone: str) -> bool:
    return re.fullmatch(AZ_ID, zone) is not None


def is_az_name(zone: str) -> bool:
    return re.fullmatch(AZ_NAME, zone) is not None


SubnetId = resource_id("subnet", "a subnet ID")


class ExistingNetwork(Spec):
    """A VPC you already run: its private subnets by AZ ID, and optionally its security group."""

    vpc_id: resource_id("vpc", "a VPC ID")
    private_subnet_ids: dict[AzId, SubnetId] = Field(min_length=1)
    # Without one, the EFA security group is created in the VPC; with one, only the EFA rules
    # it lacks are added to it.
    security_group_id: resource_id("sg", "a security group ID") | None = None


class NetworkSpec(Spec):
    vpc_cidr: AwsCidr = IPv4Network("10.0.0.0/16")
    # AZs by ID, which name the same physical zone in every account: a public and a private
    # subnet in each. EKS needs two; every instance group lives in one of them.
    availability_zone_ids: list[AzId] = []
    nat_gateways: Literal["single", "perAz"] = "single"
    # Subnet CIDRs by AZ ID, instead of the plan's (plan.py): how a stack deployed under the
    # earlier plan keeps its subnets (docs/operations.md, "Upgrading a stack").
    private_subnet_cidrs: dict[AzId, AwsCidr] = {}
    public_subnet_cidrs: dict[AzId, AwsCidr] = {}
    # The AZs of EKS's control-plane subnets; the first two of availabilityZoneIds if unset.
    control_plane_az_ids: list[AzId] = []
    # The control plane on those AZs' private subnets instead of /28s of its own, as EKS
    # clusters deployed under the earlier plan are.
    control_plane_on_node_subnets: bool = False
    existing: ExistingNetwork | None = None


def network_azs(network: NetworkSpec) -> list[str]:
    if network.existing is not None:
        return list(network.existing.private_subnet_ids)
    return network.availability_zone_ids
