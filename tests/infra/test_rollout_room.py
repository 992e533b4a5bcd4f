"""A swap (rollout newName) creates the new generation first only where the cluster holds both;
a roll needs room for a surge pod per role of fewer than four."""

import pytest

from components.cluster.spec import ClusterSpec
from components.endpoint.spec import EndpointSpec
from infra.rollout_room import rollout_room
from tests.support import dev_config, dev_endpoint, existing_cluster_config


def cluster(gpu_nodes: int = 2, config: dict | None = None) -> ClusterSpec:
    spec = (config or dev_config())["hyperpod-dpd:cluster"]
    if "instanceGroups" in spec:
        spec["instanceGroups"][0]["instanceCount"] = gpu_nodes
    return ClusterSpec.model_validate(spec)


def endpoint(**changes) -> EndpointSpec:
    return EndpointSpec.model_validate({**dev_endpoint(), "rollout": "newName", **changes})


def test_dev_cannot_hold_its_endpoint_twice_so_it_replaces_deleting_first():
    (swap,) = rollout_room(cluster(2), [endpoint()])
    assert (swap.create_first, swap.gpus_during, swap.cluster_gpus, swap.claimed_gpus) == (
        False, 32, 16, 16,
    )  # fmt: skip


def test_two_spare_nodes_let_it_swap():
    (swap,) = rollout_room(cluster(4), [endpoint()])
    assert swap.create_first and swap.gpus_during == 32 and swap.cluster_gpus == 32


def test_an_autoscaling_role_counts_at_its_most():
    scaled = endpoint(prefill={"replicas": 1, "gpus": 8, "autoscaling": {"maxReplicas": 2}})
    (swap,) = rollout_room(cluster(5), [scaled])
    # 24 GPUs at its most: 48 during a swap, more than 40.
    assert (swap.gpus, swap.create_first) == (24, False)


def test_spare_gpus_go_to_the_endpoints_in_order_so_swaps_allowed_together_fit_together():
    first, second = endpoint(), endpoint(name="second", endpointName="second")
    swaps = rollout_room(cluster(6), [first, second])
    # 48 GPUs, 32 claimed: 16 spare, enough for one swap at a time.
    assert [s.create_first for s in swaps] == [True, False]


def test_an_existing_cluster_always_tries_and_knows_no_capacity():
    (swap,) = rollout_room(cluster(config=existing_cluster_config()), [endpoint()])
    assert swap.create_first and swap.cluster_gpus is None
    assert swap.endpoint == "default/dpd-test"


def test_both_generations_must_fit_as_pods_whole_on_nodes_not_as_a_sum_of_gpus():
    wide = {"replicas": 1, "gpus": 5}
    five = endpoint(tensorParallelSize=4, prefill=wide, decode=wide)
    # Four pods of 5 GPUs during the swap: 20 GPUs fit 3 nodes' 24 in sum, but no node holds
    # two of them.
    (swap,) = rollout_room(cluster(3), [five])
    assert (swap.gpus_during, swap.cluster_gpus, swap.create_first) == (20, 24, False)
    (swap,) = rollout_room(cluster(4), [five])
    assert swap.create_first


def test_small_pods_swap_on_the_node_they_share():
    small = {"replicas": 1, "gpus": 1}
    one = endpoint(
        modelName="Llama-3.1-8B-Instruct", tensorParallelSize=1, prefill=small, decode=small
    )
    (swap,) = rollout_room(cluster(1), [one])
    assert swap.create_first


@pytest.mark.parametrize("kept", [{"adopted": True, "rollout": None}, {"rollout": "keepName"}])
def test_an_endpoint_that_keeps_its_names_claims_no_room_for_a_second_generation(kept):
    named, other = endpoint(**kept), endpoint(name="second", endpointName="second")
    first, second = rollout_room(cluster(6), [named, other])
    # It keeps its name, so it is never created beside itself; the room goes to the other.
    assert (first.create_first, first.holds_both, second.create_first) == (False, True, True)


def test_a_roll_needs_a_spare_node_per_role_of_fewer_than_four_pods():
    (room,) = rollout_room(cluster(2), [endpoint()])
    assert room.rolls is False  # dev: one prefill and one decode pod fill both nodes
    (room,) = rollout_room(cluster(4), [endpoint()])
    assert room.rolls
    # Four decode pods roll one down, one up: of five nodes' pods, only prefill needs a sixth.
    wide = endpoint(decode={"replicas": 4, "gpus": 8})
    assert [rollout_room(cluster(n), [wide])[0].rolls for n in (5, 6)] == [False, True]
    (room,) = rollout_room(cluster(config=existing_cluster_config()), [endpoint()])
    assert room.rolls is None
