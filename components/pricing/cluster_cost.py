"""What a HyperPod cluster's instance groups cost an hour on demand, group by group: none for a
group on a training plan (paid by the plan), the most a Karpenter-scaled group can reach. A
total counts the priced groups and names the others."""

from dataclasses import dataclass
from typing import Literal

from components.cluster.instance_groups import is_gpu_group
from components.cluster.karpenter import autoscaled
from components.cluster.spec import ClusterSpec
from components.pricing.prices import PRICES, Price, PriceTable

Billing = Literal["on demand", "on demand, at most", "training plan"]


@dataclass(frozen=True)
class GroupCost:
    name: str
    instance_type: str
    count: int
    gpu: bool
    billing: Billing
    # None when the table has no price for the type in the region.
    price: Price | None

    @property
    def billed(self) -> bool:
        return self.billing != "training plan"

    @property
    def hourly(self) -> float | None:
        """On-demand USD an hour for the group; None on a training plan or without a price."""
        if not self.billed or self.price is None:
            return None
        return self.count * self.price.usd_per_hour


@dataclass(frozen=True)
class Total:
    # USD an hour of the billed groups with a price; None when billed groups exist and none
    # of them has one.
    hourly: float | None
    # The billed groups it leaves out: the table has no price for them.
    unpriced: list[str]
    # It counts an EC2 rate: HyperPod charges more, so the total is a lower bound.
    lower_bound: bool
    # It counts a group Karpenter scales at its most nodes: the total is a ceiling in nodes.
    upper_bound: bool = False


def _total(groups: list[GroupCost]) -> Total:
    billed = [g for g in groups if g.billed]
    priced = [(g, g.price) for g in billed if g.price is not None]
    return Total(
        hourly=sum(g.count * p.usd_per_hour for g, p in priced) if priced or not billed else None,
        unpriced=[g.name for g in billed if g.price is None],
        lower_bound=any(p.lower_bound for _, p in priced),
        upper_bound=any(g.billing == "on demand, at most" for g, _ in priced),
    )


@dataclass(frozen=True)
class ClusterCost:
    region: str
    groups: list[GroupCost]

    @property
    def gpu_total(self) -> Total:
        return _total([g for g in self.groups if g.gpu])

    @property
    def total(self) -> Total:
        return _total(self.groups)


def cluster_cost(cluster: ClusterSpec, region: str, prices: PriceTable = PRICES) -> ClusterCost:
    groups = []
    for group in cluster.instance_groups:
        billing: Billing = (
            "training plan"
            if group.training_plan_arn
            else "on demand, at most"
            if autoscaled(cluster, group)
            else "on demand"
        )
        groups.append(
            GroupCost(
                name=group.name,
                instance_type=group.instance_type,
                count=group.instance_count,
                gpu=is_gpu_group(group),
                billing=billing,
                price=prices.price(group.instance_type, region),
            )
        )
    return ClusterCost(region, groups)
