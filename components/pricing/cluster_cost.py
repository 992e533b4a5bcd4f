"""What a HyperPod cluster's instance groups cost an hour on demand, group by group.

A group on a training plan is paid for by the plan (up front, whatever runs), so it has no
on-demand cost here. A GPU group Karpenter scales holds nodes only while pods need them: its
instanceCount, and so its cost, is the most it can reach.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from components.cluster.instance_groups import is_gpu_group
from components.cluster.karpenter import autoscaled
from components.cluster.spec import ClusterSpec
from components.pricing.prices import PRICES, PriceTable

Billing = Literal["on demand", "on demand, at most", "training plan"]


@dataclass(frozen=True)
class GroupCost:
    name: str
    instance_type: str
    count: int
    gpu: bool
    billing: Billing
    # USD per instance-hour; None when the table has no price for the type in the region.
    hourly_price: float | None

    @property
    def hourly(self) -> float | None:
        """On-demand USD an hour for the group; None on a training plan or without a price."""
        if self.billing == "training plan" or self.hourly_price is None:
            return None
        return self.count * self.hourly_price


@dataclass(frozen=True)
class ClusterCost:
    region: str
    groups: list[GroupCost]

    def _sum(self, groups: list[GroupCost]) -> float | None:
        # A total that leaves out a group without a price would mislead: none at all.
        billed = [g for g in groups if g.billing != "training plan"]
        if any(g.hourly is None for g in billed):
            return None
        return sum(g.hourly or 0.0 for g in billed)

    @property
    def gpu_hourly(self) -> float | None:
        return self._sum([g for g in self.groups if g.gpu])

    @property
    def hourly(self) -> float | None:
        return self._sum(self.groups)


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
                hourly_price=prices.price(group.instance_type, region),
            )
        )
    return ClusterCost(region, groups)
