"""AWS regions: which exist, which instance types HyperPod offers in each (derived from
cfn-lint's data by scripts/derive_region_facts.py into hyperpod_regions.json, never typed by
hand), and their AZ IDs."""

import json
import re
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator

from components.core.placeholders import holds_placeholder

REGION_TABLE_PATH = Path(__file__).with_name("hyperpod_regions.json")
_TABLE = json.loads(REGION_TABLE_PATH.read_text())

KNOWN_REGIONS: tuple[str, ...] = tuple(_TABLE["regions"])
HYPERPOD_INSTANCE_TYPES: dict[str, frozenset[str]] = {
    region: frozenset(types) for region, types in _TABLE["hyperpodInstanceTypes"].items()
}

# The AZ-ID prefix (`<prefix>-az<n>`) of each region HyperPod is offered in, from "AWS
# Availability Zones" (read 2026-12-01); a test holds it to the regions above.
AZ_ID_PREFIXES: dict[str, str] = {
    "ap-northeast-1": "apne1",
    "ap-northeast-2": "apne2",
    "ap-south-1": "aps1",
    "ap-south-2": "aps2",
    "ap-southeast-1": "apse1",
    "ap-southeast-2": "apse2",
    "ap-southeast-3": "apse3",
    "ap-southeast-4": "apse4",
    "ap-southeast-5": "apse5",
    "ca-central-1": "cac1",
    "eu-central-1": "euc1",
    "eu-central-2": "euc2",
    "eu-north-1": "eun1",
    "eu-south-2": "eus2",
    "eu-west-1": "euw1",
    "eu-west-2": "euw2",
    "sa-east-1": "sae1",
    "us-east-1": "use1",
    "us-east-2": "use2",
    "us-west-1": "usw1",
    "us-west-2": "usw2",
}

# arn:partition:service:region:account:resource
_ARN = re.compile(r"^arn:[^:]+:[^:]+:(?P<region>[^:]*):(?P<account>[^:]*):")


def regions_offering(instance_type: str) -> list[str]:
    return [region for region, types in HYPERPOD_INSTANCE_TYPES.items() if instance_type in types]


def az_id_region(az_id: str) -> str | None:
    """The HyperPod region an AZ ID belongs to, or None when no such region has its prefix."""
    prefix = az_id.rsplit("-az", 1)[0]
    return next((region for region, p in AZ_ID_PREFIXES.items() if p == prefix), None)


def arn_parts(arn: str) -> dict[str, str]:
    """The `region` and `account` of an ARN; empty strings where the ARN has none."""
    parts = _ARN.match(arn)
    return parts.groupdict() if parts else {"region": "", "account": ""}


def _known_region(value: str) -> str:
    if value not in KNOWN_REGIONS and not holds_placeholder(value):
        raise ValueError(f"must be an AWS region: {', '.join(KNOWN_REGIONS)}")
    return value


# A region name a setting may give, such as us-west-2.
AwsRegion = Annotated[str, AfterValidator(_known_region)]
