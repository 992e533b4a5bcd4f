"""The cost of GPUs, of a cluster's groups, and of a million output tokens."""

from typing import Any

import pytest

from components.cluster.spec import ClusterSpec
from components.pricing.cluster_cost import cluster_cost
from components.pricing.cost import cost_per_million_output_tokens, gpus_hourly, usd
from components.pricing.prices import EC2_ON_DEMAND, Price, PriceTable
from tests.support import dev_config, price_table

TABLE = price_table({"us-west-2": {"ml.p5.48xlarge": 50.0, "ml.c5.4xlarge": 1.0}})
PLAN = "arn:aws:sagemaker:us-west-2:123456789012:training-plan/plan-1"


def cluster(**gpu_group: Any) -> ClusterSpec:
    """The dev cluster: 2 ml.p5.48xlarge and 1 ml.c5.4xlarge, the GPU group changed."""
    spec = dev_config()["hyperpod-dpd:cluster"]
    spec["instanceGroups"][0] |= gpu_group
    return ClusterSpec.model_validate(spec)


def test_gpus_cost_their_share_of_the_node():
    assert gpus_hourly("ml.p5.48xlarge", 8, "us-west-2", TABLE) == 50.0
    assert gpus_hourly("ml.p5.48xlarge", 4, "us-west-2", TABLE) == 25.0
    assert gpus_hourly("ml.p5en.48xlarge", 8, "us-west-2", TABLE) is None


def test_each_group_costs_its_count_times_the_price():
    cost = cluster_cost(cluster(), "us-west-2", TABLE)
    assert [(g.name, g.billing, g.hourly) for g in cost.groups] == [
        ("p5-dpd", "on demand", 100.0),
        ("system", "on demand", 1.0),
    ]
    assert (cost.gpu_total.hourly, cost.total.hourly) == (100.0, 101.0)
    assert not cost.total.lower_bound and cost.total.unpriced == []


def test_a_group_without_a_price_is_left_out_of_the_totals_and_named():
    cost = cluster_cost(cluster(instanceType="ml.p5en.48xlarge"), "us-west-2", TABLE)
    assert cost.groups[0].hourly is None
    assert (cost.gpu_total.hourly, cost.gpu_total.unpriced) == (None, ["p5-dpd"])
    assert (cost.total.hourly, cost.total.unpriced) == (1.0, ["p5-dpd"])
    assert cluster_cost(cluster(), "eu-west-1", TABLE).total.hourly is None


def test_an_unpriced_cpu_group_leaves_the_gpu_nodes_cost_standing():
    table = price_table({"us-west-2": {"ml.p5.48xlarge": 55.04}}, EC2_ON_DEMAND)
    cost = cluster_cost(cluster(), "us-west-2", table)
    assert cost.gpu_total.hourly == pytest.approx(110.08)
    assert cost.gpu_total.unpriced == []
    assert cost.total.hourly == pytest.approx(110.08)
    assert cost.total.unpriced == ["system"]


@pytest.mark.parametrize(
    ("gpu_basis", "cpu_basis", "gpu_lower", "all_lower"),
    [
        ("ec2-on-demand", "ec2-on-demand", True, True),
        ("hyperpod-on-demand", "hyperpod-on-demand", False, False),
        # One EC2 rate in a total makes it a lower bound: HyperPod's would be higher.
        ("hyperpod-on-demand", "ec2-on-demand", False, True),
    ],
)
def test_a_total_on_an_ec2_rate_is_a_lower_bound(gpu_basis, cpu_basis, gpu_lower, all_lower):
    table = PriceTable(
        {
            "us-west-2": {
                "ml.p5.48xlarge": Price(50.0, gpu_basis, "test", "2026-11-01"),
                "ml.c5.4xlarge": Price(1.0, cpu_basis, "test", "2026-11-01"),
            }
        }
    )
    cost = cluster_cost(cluster(), "us-west-2", table)
    assert (cost.gpu_total.lower_bound, cost.total.lower_bound) == (gpu_lower, all_lower)


def test_a_training_plan_group_has_no_on_demand_cost():
    cost = cluster_cost(cluster(trainingPlanArn=PLAN), "us-west-2", TABLE)
    assert cost.groups[0].billing == "training plan"
    assert cost.groups[0].hourly is None
    assert (cost.gpu_total.hourly, cost.total.hourly) == (0.0, 1.0)


def test_a_karpenter_group_costs_at_most_its_instance_count():
    spec = cluster().model_dump(by_alias=True)
    spec["autoscaling"] = {"enabled": True}
    cost = cluster_cost(ClusterSpec.model_validate(spec), "us-west-2", TABLE)
    assert [(g.billing, g.hourly) for g in cost.groups] == [
        ("on demand, at most", 100.0),
        ("on demand", 1.0),
    ]


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


def test_dollars_read_with_cents_and_thousands():
    assert usd(80957.4) == "$80,957.40"
