"""The cost of the stack's nodes as the render summary and the PR comment show it."""

from typing import Any

from components.cluster.spec import ClusterSpec
from components.pricing.cluster_cost import cluster_cost
from components.pricing.prices import PriceTable
from infra.offline.cost_report import cost_document, cost_lines, cost_markdown
from tests.support import dev_config

TABLE = PriceTable(
    source="test",
    date="2026-11-20T00:00:00Z",
    hourly={"us-west-2": {"ml.p5.48xlarge": 50.0, "ml.c5.4xlarge": 1.0}},
)


def document(region: str = "us-west-2", **gpu_group: Any) -> dict[str, Any]:
    spec = dev_config()["hyperpod-dpd:cluster"]
    spec["instanceGroups"][0] |= gpu_group
    return cost_document(cluster_cost(ClusterSpec.model_validate(spec), region, TABLE), TABLE)


def test_the_summary_prices_each_group_and_totals_the_gpu_nodes_and_all():
    assert cost_lines(document()) == [
        "  p5-dpd  2 x ml.p5.48xlarge at $50.00 = $100.00/h",
        "  system  1 x ml.c5.4xlarge at $1.00 = $1.00/h",
        "  GPU nodes $100.00/h, about $73,000.00 a month",
        "  all nodes $101.00/h, about $73,730.00 a month",
    ]


def test_without_prices_the_summary_says_so_and_how_to_fill_the_table():
    lines = cost_lines(document(region="eu-west-1"))
    assert lines[0] == "  p5-dpd  2 x ml.p5.48xlarge, no price in the table"
    assert len(lines) == 3
    assert "scripts/derive_hyperpod_prices.py" in lines[-1]


def test_a_group_without_a_price_leaves_the_totals_unknown():
    lines = cost_lines(document(instanceType="ml.p5en.48xlarge"))
    assert lines[0] == "  p5-dpd  2 x ml.p5en.48xlarge, no price in the table"
    assert lines[1] == "  system  1 x ml.c5.4xlarge at $1.00 = $1.00/h"
    assert lines[2:] == [
        "  GPU nodes unknown (a group has no price)",
        "  all nodes unknown (a group has no price)",
    ]


def test_an_existing_cluster_is_billed_there():
    assert cost_lines(None) == [
        "  the nodes are the existing cluster's (cluster.existing), billed there"
    ]


def test_the_pr_comment_shows_the_totals_beside_the_base():
    lines = cost_markdown(document(instanceCount=3), document())
    assert lines[0] == "**Cost** (on demand in us-west-2, prices AWS published 2026-11-20):"
    assert "| `p5-dpd` | 3 x `ml.p5.48xlarge` | on demand | $150.00 |" in lines
    assert lines[-1] == (
        "GPU nodes: $150.00/h, about $109,500.00 a month (was $100.00/h); "
        "all nodes: $151.00/h, about $110,230.00 a month (was $101.00/h)."
    )


def test_the_pr_comment_of_an_unchanged_or_new_stack_has_no_was():
    assert "(was" not in cost_markdown(document(), document())[-1]
    assert "(was" not in cost_markdown(document(), None)[-1]
