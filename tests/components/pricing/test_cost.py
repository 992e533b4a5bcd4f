"""Node costs and the cost of a million output tokens."""

import pytest

from components.pricing.cost import (
    NodesCost,
    cost_per_million_output_tokens,
    nodes_cost,
    total_hourly,
)
from components.pricing.prices import PriceTable

TABLE = PriceTable(
    source="test",
    date="2026-11-01",
    hourly={"us-west-2": {"ml.p5.48xlarge": 50.0, "ml.c5.4xlarge": 1.0}},
)


def test_nodes_of_each_type_cost_their_count_times_the_price():
    costs = nodes_cost({"ml.p5.48xlarge": 2, "ml.c5.4xlarge": 1}, "us-west-2", TABLE)
    assert [(c.instance_type, c.hourly) for c in costs] == [
        ("ml.c5.4xlarge", 1.0),
        ("ml.p5.48xlarge", 100.0),
    ]
    assert total_hourly(costs) == 101.0
    assert costs[1].describe() == "2 x ml.p5.48xlarge x $50.00 = $100.00/h"


def test_a_type_without_a_price_leaves_the_total_unknown():
    costs = nodes_cost({"ml.p5.48xlarge": 2, "ml.p5en.48xlarge": 1}, "us-west-2", TABLE)
    assert total_hourly(costs) is None
    assert costs[1] == NodesCost("ml.p5en.48xlarge", 1, None)
    assert costs[1].describe() == "1 x ml.p5en.48xlarge (no price in the table)"


def test_no_nodes_have_no_total():
    assert total_hourly(nodes_cost({"ml.p5.48xlarge": 0}, "us-west-2", TABLE)) is None


@pytest.mark.parametrize(
    ("hourly", "tokens_per_second", "per_million"),
    [
        # $36 an hour at 10 tokens a second: 36,000 tokens an hour, $1,000 a million.
        (36.0, 10.0, 1000.0),
        # Twice the throughput halves the cost of a token.
        (36.0, 20.0, 500.0),
    ],
)
def test_the_cost_of_a_million_output_tokens(hourly, tokens_per_second, per_million):
    assert cost_per_million_output_tokens(hourly, tokens_per_second) == pytest.approx(per_million)
