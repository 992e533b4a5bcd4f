"""The cost of the stack's nodes as the render summary and the PR comment show it."""

from typing import Any

import pytest

from components.cluster.spec import ClusterSpec
from components.pricing.cluster_cost import cluster_cost
from components.pricing.prices import EC2_ON_DEMAND, PRICES, PriceTable
from tests.support import dev_config, price_table
from tools.reports.cost_report import cost_document, cost_lines

TABLE = price_table({"us-west-2": {"ml.p5.48xlarge": 50.0, "ml.c5.4xlarge": 1.0}})
# EC2's rate for the GPU nodes only: the committed table's shape for dev.
EC2_GPUS = price_table({"us-west-2": {"ml.p5.48xlarge": 55.04}}, EC2_ON_DEMAND)


def document(
    region: str = "us-west-2", table: PriceTable = TABLE, **gpu_group: Any
) -> dict[str, Any]:
    spec = dev_config()["hyperpod-dpd:cluster"]
    spec["instanceGroups"][0] |= gpu_group
    return cost_document(cluster_cost(ClusterSpec.model_validate(spec), region, table))


def test_the_summary_prices_each_group_and_totals_the_gpu_nodes_and_all():
    assert cost_lines(document()) == [
        "  p5-dpd  2 x ml.p5.48xlarge at $50.00 = $100.00/h",
        "  system  1 x ml.c5.4xlarge at $1.00 = $1.00/h",
        "  GPU nodes $100.00/h, about $73,000.00 a month",
        "  all nodes $101.00/h, about $73,730.00 a month",
        "  HyperPod's on-demand rates from AWS's Price List, published 2026-11-01.",
    ]


def test_on_ec2_rates_the_gpu_nodes_cost_at_least_and_the_unpriced_group_is_named():
    lines = cost_lines(document(table=EC2_GPUS))
    assert lines[:4] == [
        "  p5-dpd  2 x ml.p5.48xlarge at $55.04 (EC2) = at least $110.08/h",
        "  system  1 x ml.c5.4xlarge, no price in the table",
        "  GPU nodes at least $110.08/h, about $80,358.40 a month",
        "  all nodes at least $110.08/h, about $80,358.40 a month, leaving out system (no price)",
    ]
    # The caveat, once: what the figures are, the one HyperPod ratio seen, never applied.
    (caveat,) = lines[4:]
    assert caveat.startswith(
        "  At least: EC2 on-demand rates of the same hardware (test, 2026-11-01)"
    )
    assert (
        "ml.p4d.24xlarge in us-west-2 on 2026-10-01, is 1.18x EC2's; one data point, not applied"
        in caveat
    )


def test_the_committed_table_prices_the_dev_gpu_nodes():
    doc = cost_document(
        cluster_cost(
            ClusterSpec.model_validate(dev_config()["hyperpod-dpd:cluster"]), "us-west-2", PRICES
        )
    )
    assert (doc["gpuHourly"], doc["gpuHourlyAtLeast"]) == (pytest.approx(110.08), True)
    assert doc["hourlyUnpriced"] == ["system"]
    assert doc["groups"][0]["priceBasis"] == "ec2-on-demand"
    assert doc["groups"][0]["priceDate"] == "2026-08-26"


def test_an_autoscaled_group_on_an_ec2_rate_says_both():
    spec = dev_config()["hyperpod-dpd:cluster"]
    spec["autoscaling"] = {"enabled": True}
    doc = cost_document(cluster_cost(ClusterSpec.model_validate(spec), "us-west-2", EC2_GPUS))
    lines = cost_lines(doc)
    assert lines[0] == (
        "  p5-dpd  2 x ml.p5.48xlarge at $55.04 (EC2) = at most $110.08/h at EC2's rate"
    )
    # The totals say the group's bounds the same way, not "at least".
    assert lines[2] == "  GPU nodes at most $110.08/h at EC2's rate, about $80,358.40 a month"
    assert lines[3].startswith("  all nodes at most $110.08/h at EC2's rate")


def test_without_prices_the_summary_says_so_and_how_to_fill_the_table():
    lines = cost_lines(document(region="eu-west-1"))
    assert lines[0] == "  p5-dpd  2 x ml.p5.48xlarge, no price in the table"
    assert len(lines) == 3
    assert "scripts/derive_hyperpod_prices.py" in lines[-1]


def test_a_gpu_group_without_a_price_leaves_the_gpu_total_unknown_not_the_others():
    lines = cost_lines(document(instanceType="ml.p5en.48xlarge"))
    assert lines[0] == "  p5-dpd  2 x ml.p5en.48xlarge, no price in the table"
    assert lines[1] == "  system  1 x ml.c5.4xlarge at $1.00 = $1.00/h"
    assert lines[2:4] == [
        "  GPU nodes unknown (no group has a price)",
        "  all nodes $1.00/h, about $730.00 a month, leaving out p5-dpd (no price)",
    ]


def test_an_existing_cluster_is_billed_there():
    assert cost_lines(None) == [
        "  the nodes are the existing cluster's (cluster.existing), billed there"
    ]
