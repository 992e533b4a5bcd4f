"""What the stack's nodes cost, as the render summary, sizing.json and the PR comment show it.

The figures come from the price table (components/pricing); where it has no price, the report
says so instead of guessing.
"""

from __future__ import annotations

from typing import Any

from components.cluster.spec import ClusterSpec
from components.pricing.cluster_cost import ClusterCost, cluster_cost
from components.pricing.cost import usd
from components.pricing.prices import PRICES, PriceTable

HOURS_PER_MONTH = 730
NO_PRICES = (
    "the price table has none for this region yet; scripts/derive_hyperpod_prices.py fills it "
    "from AWS's Price List"
)


def cost_document(cost: ClusterCost, prices: PriceTable = PRICES) -> dict[str, Any]:
    return {
        "region": cost.region,
        "currency": "USD",
        "priceSource": prices.source,
        "pricesPublished": prices.date,
        "groups": [
            {
                "name": g.name,
                "instanceType": g.instance_type,
                "count": g.count,
                "gpu": g.gpu,
                "billing": g.billing,
                "hourlyPrice": g.hourly_price,
                "hourly": g.hourly,
            }
            for g in cost.groups
        ],
        "gpuHourly": cost.gpu_hourly,
        "hourly": cost.hourly,
    }


def stack_cost(cluster: ClusterSpec, region: str) -> dict[str, Any] | None:
    """The cost document of the stack's own nodes; None on an existing cluster."""
    return None if cluster.existing else cost_document(cluster_cost(cluster, region))


def _group(group: dict[str, Any]) -> str:
    nodes = f"{group['count']} x {group['instanceType']}"
    if group["billing"] == "training plan":
        return f"{nodes}, paid by its training plan"
    if group["hourly"] is None:
        return f"{nodes}, no price in the table"
    most = "at most " if group["billing"] == "on demand, at most" else ""
    return f"{nodes} at {usd(group['hourlyPrice'])} = {most}{usd(group['hourly'])}/h"


def _amount(hourly: float | None) -> str:
    if hourly is None:
        return "unknown (a group has no price)"
    return f"{usd(hourly)}/h, about {usd(hourly * HOURS_PER_MONTH)} a month"


def _unpriced(doc: dict[str, Any]) -> bool:
    """No group has a price: totals would only say unknown."""
    return all(g["hourlyPrice"] is None for g in doc["groups"])


def cost_headline(doc: dict[str, Any]) -> str:
    published = doc["pricesPublished"]
    where = f"on demand in {doc['region']}"
    return f"{where}, prices AWS published {published[:10]}" if published else where


def cost_lines(doc: dict[str, Any] | None) -> list[str]:
    """The summary's lines: each group, then the GPU nodes and all nodes an hour."""
    if doc is None or not doc["groups"]:
        return ["  the nodes are the existing cluster's (cluster.existing), billed there"]
    width = max(len(g["name"]) for g in doc["groups"])
    lines = [f"  {g['name']:<{width}}  {_group(g)}" for g in doc["groups"]]
    if _unpriced(doc):
        return [*lines, f"  no prices: {NO_PRICES}"]
    return [
        *lines,
        f"  GPU nodes {_amount(doc['gpuHourly'])}",
        f"  all nodes {_amount(doc['hourly'])}",
    ]


def _was(head: dict[str, Any], base: dict[str, Any] | None, key: str) -> str:
    """How a total differed at the base; nothing when it did not, or the base had no nodes."""
    if base is None or not base["groups"] or head[key] == base[key]:
        return ""
    return f" (was {'unknown' if base[key] is None else usd(base[key]) + '/h'})"


def cost_markdown(head: dict[str, Any] | None, base: dict[str, Any] | None) -> list[str]:
    """The PR comment's cost section: each group, and the totals beside the base's."""
    if head is None or not head["groups"]:
        return []
    lines = [
        f"**Cost** ({cost_headline(head)}):",
        "",
        "| Group | Nodes | Billing | An hour |",
        "|---|---|---|---|",
    ]
    for g in head["groups"]:
        hourly = "no price in the table" if g["hourly"] is None else f"{usd(g['hourly'])}"
        if g["billing"] == "training plan":
            hourly = "training plan"
        lines.append(
            f"| `{g['name']}` | {g['count']} x `{g['instanceType']}` | {g['billing']} | {hourly} |"
        )
    if _unpriced(head):
        return [*lines, "", f"No prices: {NO_PRICES}."]
    return [
        *lines,
        "",
        f"GPU nodes: {_amount(head['gpuHourly'])}{_was(head, base, 'gpuHourly')}; "
        f"all nodes: {_amount(head['hourly'])}{_was(head, base, 'hourly')}.",
    ]
