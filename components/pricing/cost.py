"""What nodes cost an hour, and what a million output tokens cost at a throughput."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from components.pricing.prices import PRICES, PriceTable

SECONDS_PER_HOUR = 3600


@dataclass(frozen=True)
class NodesCost:
    """Nodes of one instance type, and their on-demand cost when the table prices them."""

    instance_type: str
    count: int
    # USD per instance-hour; None when the table has no price for the type in the region.
    hourly_price: float | None

    @property
    def hourly(self) -> float | None:
        return None if self.hourly_price is None else self.count * self.hourly_price

    def describe(self) -> str:
        nodes = f"{self.count} x {self.instance_type}"
        if self.hourly is None:
            return f"{nodes} (no price in the table)"
        return f"{nodes} x {usd(self.hourly_price)} = {usd(self.hourly)}/h"


def nodes_cost(
    counts: Mapping[str, int], region: str, prices: PriceTable = PRICES
) -> list[NodesCost]:
    """The cost of `counts` nodes of each instance type in `region`, by type."""
    return [
        NodesCost(kind, count, prices.price(kind, region))
        for kind, count in sorted(counts.items())
        if count
    ]


def total_hourly(costs: list[NodesCost]) -> float | None:
    """USD an hour for all of them; None when any type has no price (a partial sum misleads)."""
    hourly = [c.hourly for c in costs]
    if not hourly or any(h is None for h in hourly):
        return None
    return sum(h for h in hourly if h is not None)


def cost_per_million_output_tokens(hourly_usd: float, output_tokens_per_second: float) -> float:
    """USD per million output tokens for nodes costing `hourly_usd` that produce tokens at
    `output_tokens_per_second` around the clock."""
    return hourly_usd / (output_tokens_per_second * SECONDS_PER_HOUR) * 1e6


def usd(amount: float) -> str:
    return f"${amount:,.2f}"
