"""What the stack's nodes cost, for the render summary, sizing.json and the PR comment.

Where the price table (components/pricing) has no price the report says so, and a total counts
the priced groups and names the others. A figure at EC2's rate for the same hardware reads "at
least" (the caveat said once); one counting a group Karpenter scales at its most nodes, "at
most"; a group's line and the totals word their bounds alike.
"""

from typing import Any

from components.cluster.spec import ClusterSpec
from components.pricing.cluster_cost import ClusterCost, Total, cluster_cost
from components.pricing.cost import usd
from components.pricing.prices import EC2_ON_DEMAND, HYPERPOD_ON_DEMAND, at_least, ec2_caveat

HOURS_PER_MONTH = 730
NO_PRICES = (
    "the price table has none for this region yet; scripts/derive_hyperpod_prices.py fills it "
    "from AWS's Price List"
)


def _totals(key: str, total: Total) -> dict[str, Any]:
    return {
        key: total.hourly,
        f"{key}Unpriced": total.unpriced,
        f"{key}AtLeast": total.lower_bound,
        f"{key}AtMost": total.upper_bound,
    }


def cost_document(cost: ClusterCost) -> dict[str, Any]:
    return {
        "region": cost.region,
        "currency": "USD",
        "groups": [
            {
                "name": g.name,
                "instanceType": g.instance_type,
                "count": g.count,
                "gpu": g.gpu,
                "billing": g.billing,
                "hourlyPrice": g.price and g.price.usd_per_hour,
                "priceBasis": g.price and g.price.basis,
                "priceSource": g.price and g.price.source,
                "priceDate": g.price and g.price.date,
                "hourly": g.hourly,
            }
            for g in cost.groups
        ],
        **_totals("gpuHourly", cost.gpu_total),
        **_totals("hourly", cost.total),
    }


def stack_cost(cluster: ClusterSpec, region: str) -> dict[str, Any] | None:
    return None if cluster.existing else cost_document(cluster_cost(cluster, region))


def _ec2(group: dict[str, Any]) -> bool:
    return group["priceBasis"] == EC2_ON_DEMAND


def _bounded(amount: str, *, at_most: bool, ec2: bool) -> str:
    """A cost with the words for its bounds: Karpenter's node ceiling, EC2's rate floor."""
    if at_most:
        return f"at most {amount}" + (" at EC2's rate" if ec2 else "")
    return at_least(ec2) + amount


def _group(group: dict[str, Any]) -> str:
    nodes = f"{group['count']} x {group['instanceType']}"
    if group["billing"] == "training plan":
        return f"{nodes}, paid by its training plan"
    if group["hourly"] is None:
        return f"{nodes}, no price in the table"
    price = usd(group["hourlyPrice"]) + (" (EC2)" if _ec2(group) else "")
    at_most = group["billing"] == "on demand, at most"
    return f"{nodes} at {price} = " + _bounded(
        f"{usd(group['hourly'])}/h", at_most=at_most, ec2=_ec2(group)
    )


def _amount(doc: dict[str, Any], key: str) -> str:
    hourly = doc[key]
    if hourly is None:
        return "unknown (no group has a price)"
    bounded = _bounded(
        f"{usd(hourly)}/h", at_most=doc.get(f"{key}AtMost", False), ec2=doc[f"{key}AtLeast"]
    )
    amount = f"{bounded}, about {usd(hourly * HOURS_PER_MONTH)} a month"
    unpriced = doc[f"{key}Unpriced"]
    return f"{amount}, leaving out {', '.join(unpriced)} (no price)" if unpriced else amount


def cost_headline(doc: dict[str, Any]) -> str:
    return f"on demand in {doc['region']}"


def cost_notes(doc: dict[str, Any]) -> list[str]:
    """Where the prices come from: the caveat of EC2's rates, the date of HyperPod's."""
    priced = [g for g in doc["groups"] if g["hourlyPrice"] is not None]
    notes = []
    ec2 = [f"{g['priceSource']}, {g['priceDate']}" for g in priced if _ec2(g)]
    if ec2:
        notes.append(f"At least: {ec2_caveat(ec2)}.")
    hyperpod = sorted({g["priceDate"] for g in priced if g["priceBasis"] == HYPERPOD_ON_DEMAND})
    if hyperpod:
        notes.append(
            f"HyperPod's on-demand rates from AWS's Price List, published {', '.join(hyperpod)}."
        )
    return notes


def cost_lines(doc: dict[str, Any] | None) -> list[str]:
    if doc is None or not doc["groups"]:
        return ["  the nodes are the existing cluster's (cluster.existing), billed there"]
    width = max(len(g["name"]) for g in doc["groups"])
    lines = [f"  {g['name']:<{width}}  {_group(g)}" for g in doc["groups"]]
    # Totals of groups none of which has a price would only say unknown.
    if all(g["hourlyPrice"] is None for g in doc["groups"]):
        return [*lines, f"  no prices: {NO_PRICES}"]
    return [
        *lines,
        f"  GPU nodes {_amount(doc, 'gpuHourly')}",
        f"  all nodes {_amount(doc, 'hourly')}",
        *(f"  {note}" for note in cost_notes(doc)),
    ]
