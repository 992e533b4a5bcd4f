"""A replacement creates the new generation first only where the cluster holds both."""

from components.cluster.spec import ClusterSpec
from components.endpoint.spec import EndpointSpec
from infra.endpoint_swaps import endpoint_swaps
from tests.support import dev_config, dev_endpoint, existing_cluster_config


def cluster(gpu_nodes: int = 2, config: dict | None = None) -> ClusterSpec:
    spec = (config or dev_config())["hyperpod-dpd:cluster"]
    if "instanceGroups" in spec:
        spec["instanceGroups"][0]["instanceCount"] = gpu_nodes
    return ClusterSpec.model_validate(spec)


def endpoint(**changes) -> EndpointSpec:
    return EndpointSpec.model_validate({**dev_endpoint(), **changes})


def test_dev_cannot_hold_its_endpoint_twice_so_it_replaces_deleting_first():
    (swap,) = endpoint_swaps(cluster(2), [endpoint()])
    assert (swap.create_first, swap.gpus_during, swap.cluster_gpus, swap.claimed_gpus) == (
        False, 32, 16, 16,
    )  # fmt: skip


def test_two_spare_nodes_let_it_swap():
    (swap,) = endpoint_swaps(cluster(4), [endpoint()])
    assert swap.create_first and swap.gpus_during == 32 and swap.cluster_gpus == 32


def test_an_autoscaling_role_counts_at_its_most():
    scaled = endpoint(prefill={"replicas": 1, "gpus": 8, "autoscaling": {"maxReplicas": 2}})
    (swap,) = endpoint_swaps(cluster(5), [scaled])
    # 24 GPUs at its most: 48 during a swap, more than 40.
    assert (swap.gpus, swap.create_first) == (24, False)


def test_spare_gpus_go_to_the_endpoints_in_order_so_swaps_allowed_together_fit_together():
    first, second = endpoint(), endpoint(name="second", endpointName="second")
    swaps = endpoint_swaps(cluster(6), [first, second])
    # 48 GPUs, 32 claimed: 16 spare, enough for one swap at a time.
    assert [s.create_first for s in swaps] == [True, False]


def test_an_existing_cluster_always_tries_and_knows_no_capacity():
    (swap,) = endpoint_swaps(cluster(config=existing_cluster_config()), [endpoint()])
    assert swap.create_first and swap.cluster_gpus is None
    assert swap.endpoint == "default/dpd-test"


def test_both_generations_must_fit_as_pods_whole_on_nodes_not_as_a_sum_of_gpus():
    wide = {"replicas": 1, "gpus": 5}
    five = endpoint(tensorParallelSize=4, prefill=wide, decode=wide)
    # Four pods of 5 GPUs during the swap: 20 GPUs fit 3 nodes' 24 in sum, but no node holds
    # two of them.
    (swap,) = endpoint_swaps(cluster(3), [five])
    assert (swap.gpus_during, swap.cluster_gpus, swap.create_first) == (20, 24, False)
    (swap,) = endpoint_swaps(cluster(4), [five])
    assert swap.create_first


def test_small_pods_swap_on_the_node_they_share():
    small = {"replicas": 1, "gpus": 1}
    one = endpoint(
        modelName="Llama-3.1-8B-Instruct", tensorParallelSize=1, prefill=small, decode=small
    )
    (swap,) = endpoint_swaps(cluster(1), [one])
    assert swap.create_first


def test_an_adopted_endpoint_claims_no_room_for_a_second_generation():
    adopted, other = endpoint(adopted=True), endpoint(name="second", endpointName="second")
    first, second = endpoint_swaps(cluster(6), [adopted, other])
    # It keeps its name, so it is never created beside itself; the room goes to the other.
    assert (first.create_first, second.create_first) == (False, True)
