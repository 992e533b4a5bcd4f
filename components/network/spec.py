"""The typed description of the network: a new VPC carved per availability zone, or yours."""

from __future__ import annotations

import re
from ipaddress import IPv4Network
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from components.core.cidrs import NEVER_ROUTED, special_range
from components.core.spec import Spec

# The sizes AWS allows for a VPC's IPv4 CIDR block: from /16 (65,536 addresses) to /28 (16).
# Source: Amazon EC2 API Reference, CreateVpc. A subnet lies inside its VPC and is no smaller
# than /28 either.
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


AwsCidr = Annotated[IPv4Network, AfterValidator(_aws_cidr_size), AfterValidator(_host_range)]
# An AZ ID (`usw2-az2`) names the same physical zone in every account; an AZ name
# (`us-west-2b`, the Region's name and a letter) is mapped to a zone per account (EC2 User
# Guide, "Availability Zone IDs"). components/network/zones.py resolves one to the other.
AZ_ID = r"^[a-z]{2,4}[0-9]-az[0-9]+$"
AZ_NAME = r"^[a-z]{2}(-[a-z]+)+-[0-9]+[a-z]$"
AzId = Annotated[str, Field(pattern=AZ_ID)]


def is_az_id(zone: str) -> bool:
    return re.fullmatch(AZ_ID, zone) is not None


def is_az_name(zone: str) -> bool:
    return re.fullmatch(AZ_NAME, zone) is not None


SUBNET_ID = r"^subnet-[0-9a-f]{8,17}$"


class ExistingNetwork(Spec):
    """A VPC you already run: its private subnets by AZ ID, and optionally its security group."""

    vpc_id: str = Field(pattern=r"^vpc-[0-9a-f]{8,17}$")
    private_subnet_ids: dict[AzId, Annotated[str, Field(pattern=SUBNET_ID)]] = Field(min_length=1)
    # Without one, the EFA security group is created in the VPC; with one, only the EFA rules
    # it lacks are added to it.
    security_group_id: str | None = Field(None, pattern=r"^sg-[0-9a-f]{8,17}$")


class NetworkSpec(Spec):
    vpc_cidr: AwsCidr = IPv4Network("10.0.0.0/16")
    # AZs by ID, which name the same physical zone in every account: a public and a private
    # subnet in each. EKS needs two; every instance group lives in one of them.
    availability_zone_ids: list[AzId] = []
    nat_gateways: Literal["single", "perAz"] = "single"
    # Private subnet CIDRs by AZ ID, instead of carving them from vpcCidr.
    private_subnet_cidrs: dict[AzId, AwsCidr] = {}
    existing: ExistingNetwork | None = None
