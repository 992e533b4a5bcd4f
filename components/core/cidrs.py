"""CIDRs that mean "anyone on the internet"."""

from __future__ import annotations

from collections.abc import Iterable

WORLD_CIDRS = ("0.0.0.0/0", "::/0")


def world_cidrs(cidrs: Iterable[str | None]) -> list[str]:
    """Those of `cidrs` that open to the whole internet."""
    return [cidr for cidr in cidrs if cidr in WORLD_CIDRS]
