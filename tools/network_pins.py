"""`hyperpod-dpd pin-network`: a stack deployed before the network plan (components/network/
plan.py) has subnets sized for its nodes of the day and its EKS control plane on them, which
the plan would replace, and EKS and HyperPod with them; this prints the `pulumi config set`
commands that pin them, read from the stack's state (`pulumi stack export`).
"""

import json
import re
import shlex
from pathlib import Path
from typing import Any


class PinError(ValueError):
    """The state names no subnet to pin, or is not a state."""


SUBNET = "aws:ec2/subnet:Subnet"
CONTROL_PLANE = "aws:eks/cluster:Cluster"
# The network component's subnets, by role and AZ ID (components/network/vpc.py).
SUBNET_NAME = re.compile(r"::network-(private|public)-([a-z0-9]+-az[0-9]+)$")


def pins(state: dict[str, Any]) -> dict[str, Any]:
    resources = state.get("deployment", {}).get("resources") or []
    found: dict[str, dict[str, str]] = {"private": {}, "public": {}}
    private_ids = {}
    for resource in resources:
        named = SUBNET_NAME.search(resource.get("urn", ""))
        if resource.get("type") == SUBNET and named:
            role, az = named.groups()
            found[role][az] = resource["inputs"]["cidrBlock"]
            if role == "private":
                private_ids[resource["id"]] = az
    if not found["private"]:
        raise PinError("it holds no subnet of this stack's network")
    settings: dict[str, Any] = {
        "privateSubnetCidrs": found["private"],
        "publicSubnetCidrs": found["public"],
    }
    for resource in resources:
        if resource.get("type") == CONTROL_PLANE:
            subnets = resource["inputs"]["vpcConfig"]["subnetIds"]
            if all(subnet in private_ids for subnet in subnets):
                settings["controlPlaneAzIds"] = [private_ids[subnet] for subnet in subnets]
                settings["controlPlaneOnNodeSubnets"] = True
    return settings


def pin_commands(stack: str, state_file: Path) -> list[str]:
    try:
        settings = pins(json.loads(state_file.read_text()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as unreadable:
        raise PinError(
            f"--state {state_file}: not a `pulumi stack export` ({unreadable})"
        ) from None
    paths = []
    for key, value in settings.items():
        if isinstance(value, dict):
            paths += [(f'network.{key}["{az}"]', cidr) for az, cidr in value.items()]
        elif isinstance(value, list):
            paths += [(f"network.{key}[{i}]", az) for i, az in enumerate(value)]
        else:
            paths.append((f"network.{key}", "true"))
    return [
        f"pulumi config set --stack {shlex.quote(stack)} --path {shlex.quote(path)} {value}"
        for path, value in paths
    ]
