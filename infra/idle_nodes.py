"""GPU nodes that no endpoint can claim: paid for by the hour, serving nothing.

Per instance type, the endpoints claim at most their roles' GPUs at maxReplicas (the
autoscaling maxima, or the fixed replicas); any whole node of that type beyond those claims
stays idle. Not counted as idle:
- groups Karpenter scales (cluster.autoscaling): they hold nodes only while pods need them;
- groups on a training plan: paid for by the plan whether used or not, so the claims fill
  them first;
- the system group and any other CPU group: the operator and cluster add-ons run there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from components.cluster.instance_types import DPD_INSTANCE_TYPES
from components.cluster.karpenter import autoscaled
from components.cluster.spec import ClusterSpec
from components.core.findings import Finding, field_path, warning
from components.endpoint.spec import DpdEndpointSpec
from components.pricing.cost import usd
from components.pricing.prices import PRICES, PriceTable, at_least
from components.sizing.replicas import endpoint_replicas


def idle_gpu_nodes(
    cluster: ClusterSpec,
    endpoints: Sequence[DpdEndpointSpec],
    region: str,
    prices: PriceTable = PRICES,
) -> list[Finding]:
    if cluster.existing is not None:
        return []
    found = []
    for kind, facts in DPD_INSTANCE_TYPES.items():
        groups = [
            (i, g)
            for i, g in enumerate(cluster.instance_groups)
            if g.instance_type == kind and not autoscaled(cluster, g)
        ]
        on_demand = [(i, g) for i, g in groups if g.training_plan_arn is None]
        if not on_demand:
            continue
        claimed_gpus = sum(
            endpoint_replicas(e).max_gpus for e in endpoints if e.instance_type == kind
        )
        claimed_nodes = math.ceil(claimed_gpus / facts.gpus)
        planned = sum(g.instance_count for _, g in groups if g.training_plan_arn is not None)
        held = sum(g.instance_count for _, g in on_demand)
        idle = held - max(0, claimed_nodes - planned)
        if idle <= 0:
            continue
        # The group to lower: the largest of the type, so one change removes the most.
        i, group = max(on_demand, key=lambda pair: pair[1].instance_count)
        price = prices.price(kind, region)
        if price is None:
            cost = f"an unknown amount (the price table has no {kind} price in {region})"
        else:
            hourly = usd(idle * price.usd_per_hour)
            cost = f"{at_least(price.lower_bound)}{hourly}/h on demand in {region}"
            if price.lower_bound:
                cost += " (at EC2's rate for the same hardware; HyperPod's is higher)"
        found.append(
            warning(
                "idle-gpu-nodes",
                field_path("cluster", "instanceGroups", i, "instanceCount"),
                f"{idle} of the {held + planned} {kind} nodes are claimed by no endpoint and "
                f"would stand idle, costing {cost}: the endpoints on {kind} claim at most "
                f"{claimed_gpus} GPUs ({claimed_nodes} nodes of {facts.gpus}) at their "
                f"maxReplicas; lower {group.name}'s instanceCount from {group.instance_count} "
                f"to {group.instance_count - min(idle, group.instance_count)}, or give the "
                "endpoints more replicas",
            )
        )
    return found
