"""The typed description of the network: a new VPC carved per availability zone, or yours."""

from __future__ import annotations

from ipaddress import IPv4Network
from typing import Annotated, Literal

from pydantic import Field

from components.core.spec import Spec

AzId = Annotated[str, Field(pattern=r"^[a-z]{2,4}[0-9]-az[0-9]+$")]
SUBNET_ID = r"^subnet-[0-9a-f]{8,17}$"


class ExistingNetwork(Spec):
    """A VPC you already run: its private subnets by AZ ID, and optionally its security group."""

    vpc_id: str = Field(pattern=r"^vpc-[0-9a-f]{8,17}$")
    private_subnet_ids: dict[AzId, Annotated[str, Field(pattern=SUBNET_ID)]] = Field(min_length=1)
    # Without one, the EFA security group is created in the VPC; with one, only the EFA rules
    # it lacks are added to it.
    security_group_id: str | None = Field(None, pattern=r"^sg-[0-9a-f]{8,17}$")


class NetworkSpec(Spec):
    vpc_cidr: IPv4Network = IPv4Network("10.0.0.0/16")
    # AZs by ID, which name the same physical zone in every account: a public and a private
    # subnet in each. EKS needs two; every instance group lives in one of them.
    availability_zone_ids: list[AzId] = []
    nat_gateways: Literal["single", "perAz"] = "single"
    # Private subnet CIDRs by AZ ID, instead of carving them from vpcCidr.
    private_subnet_cidrs: dict[AzId, IPv4Network] = {}
    existing: ExistingNetwork | None = None
