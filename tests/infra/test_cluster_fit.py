"""GPU nodes no endpoint can claim are a warning naming the group's instanceCount and the cost."""

from typing import Any

import pytest

from components.cluster.spec import ClusterSpec
from components.endpoint.spec import DpdEndpointSpec
from infra.cluster_fit import idle_gpu_nodes
from tests.support import dev_config, dev_endpoint, price_table, render, with_endpoints

PRICES = price_table({"us-west-2": {"ml.p5.48xlarge": 50}})
PLAN = "arn:aws:sagemaker:us-west-2:123456789012:training-plan/plan-1"


def cluster(*gpu_counts: int, **group: Any) -> ClusterSpec:
    spec = dev_config()["hyperpod-dpd:cluster"]
    system = spec["instanceGroups"][1]
    spec["instanceGroups"] = [
        {**spec["instanceGroups"][0], "name": f"p5-{i}", "instanceCount": count, **group}
        for i, count in enumerate(gpu_counts)
    ] + [system]
    return ClusterSpec.model_validate(spec)


def endpoint(**roles: Any) -> DpdEndpointSpec:
    """The dev endpoint (one prefill and one decode pod of 8 GPUs) with these role settings."""
    spec = dev_endpoint()
    for role, settings in roles.items():
        spec[role] |= settings
    return DpdEndpointSpec.model_validate(spec)


def test_nodes_beyond_the_endpoints_claims_are_a_warning_with_their_cost():
    (found,) = idle_gpu_nodes(cluster(4), [endpoint()], "us-west-2", PRICES)
    assert found.level == "warning"
    assert found.field == "cluster.instanceGroups[0].instanceCount"
    assert found.message.startswith(
        "2 of the 4 ml.p5.48xlarge nodes are claimed by no endpoint and would stand idle, "
        "costing $100.00/h on demand in us-west-2: the endpoints on ml.p5.48xlarge claim at "
        "most 16 GPUs (2 nodes of 8) at their maxReplicas; lower p5-0's instanceCount from 4 "
        "to 2"
    )


def test_on_the_committed_ec2_rates_the_warning_gives_a_lower_bound():
    (found,) = idle_gpu_nodes(cluster(4), [endpoint()], "us-west-2")
    assert (
        "costing at least $110.08/h on demand in us-west-2 (at EC2's rate for the same hardware; "
        "HyperPod's is higher)"
    ) in found.message


def test_without_a_price_the_warning_still_counts_the_nodes():
    (found,) = idle_gpu_nodes(cluster(3), [endpoint()], "eu-west-1", PRICES)
    assert "1 of the 3 ml.p5.48xlarge nodes" in found.message
    assert "an unknown amount (the price table has no ml.p5.48xlarge price in eu-west-1)" in (
        found.message
    )


def test_the_largest_group_of_the_type_is_the_one_to_lower():
    (found,) = idle_gpu_nodes(cluster(1, 3), [endpoint()], "us-west-2", PRICES)
    assert found.field == "cluster.instanceGroups[1].instanceCount"
    assert "lower p5-1's instanceCount from 3 to 1" in found.message


@pytest.mark.parametrize(
    ("nodes", "endpoints"),
    [
        # Exactly claimed.
        ((2,), [endpoint()]),
        # The autoscaling maxima claim the nodes the fixed replicas leave free.
        ((3,), [endpoint(decode={"autoscaling": {"minReplicas": 1, "maxReplicas": 2}})]),
        # Four-GPU roles share one node between them.
        ((1,), [endpoint(prefill={"gpus": 4}, decode={"gpus": 4})]),
    ],
)
def test_claimed_nodes_are_not_idle(nodes, endpoints):
    assert idle_gpu_nodes(cluster(*nodes), endpoints, "us-west-2", PRICES) == []


def test_a_larger_system_group_is_not_idle_gpu():
    spec = cluster(2).model_dump(by_alias=True)
    spec["instanceGroups"][1]["instanceCount"] = 3
    assert idle_gpu_nodes(ClusterSpec.model_validate(spec), [endpoint()], "us-west-2", PRICES) == []


def test_karpenter_groups_hold_nodes_only_while_pods_need_them():
    spec = cluster(4).model_dump(by_alias=True)
    spec["autoscaling"] = {"enabled": True}
    spec["instanceGroups"][0]["deepHealthChecks"] = []
    assert idle_gpu_nodes(ClusterSpec.model_validate(spec), [endpoint()], "us-west-2", PRICES) == []


def test_training_plan_nodes_are_paid_for_anyway_and_take_the_claims_first():
    # A planned group alone is never idle on-demand spend.
    assert idle_gpu_nodes(cluster(4, trainingPlanArn=PLAN), [endpoint()], "us-west-2", PRICES) == []
    # Beside it, the endpoints fill the plan's 2 nodes, so both on-demand nodes stand idle.
    spec = cluster(2, 2).model_dump(by_alias=True)
    spec["instanceGroups"][0]["trainingPlanArn"] = PLAN
    (found,) = idle_gpu_nodes(ClusterSpec.model_validate(spec), [endpoint()], "us-west-2", PRICES)
    assert found.field == "cluster.instanceGroups[1].instanceCount"
    assert found.message.startswith("2 of the 4 ml.p5.48xlarge nodes")
    assert "costing $100.00/h" in found.message


def test_the_warning_reaches_the_program_log_naming_the_key():
    result = render(with_endpoints(dev_endpoint(), gpu_nodes=3))
    (idle,) = [w for w in result.warnings if "claimed by no endpoint" in w]
    assert idle.startswith(
        "hyperpod-dpd:cluster.instanceGroups[0].instanceCount: 1 of the 3 ml.p5.48xlarge nodes"
    )
