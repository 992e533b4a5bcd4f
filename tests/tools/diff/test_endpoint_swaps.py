"""A change the operator cannot make in place swaps the endpoint to a new generation with no
outage where the cluster holds both, and the diff says so with the GPUs it takes; otherwise it
deletes first, and the diff lists the outage and what would avoid it."""

from tests.support import aggregated_endpoint, dev_endpoint, with_endpoints
from tests.tools.diff.in_process import report


def routing(gpu_nodes: int, strategy: str) -> dict:
    return with_endpoints({**dev_endpoint(), "routingStrategy": strategy}, gpu_nodes=gpu_nodes)


def outages(text: str) -> list[str]:
    if "\nOutages:\n" not in text:
        return []
    section = text.split("\nOutages:\n", 1)[1].split("\n\n", 1)[0]
    return section.splitlines()


def test_a_routing_change_with_room_for_both_generations_is_a_swap_with_no_outage():
    text = report(routing(4, "prefixaware"), routing(4, "roundrobin"))
    assert outages(text) == []
    swaps = text.split("Swaps (replaced with no outage):\n", 1)[1]
    assert swaps.startswith("  - endpoint `default/dpd-test`: replaced creation-first, with no ")
    assert "moves dpd-test.default.svc.cluster.local to it, then deletes dpd-test-g" in swaps
    assert (
        "Both hold 32 GPUs of ml.p5.48xlarge at once (16 each at their most), and the "
        "cluster's groups hold 32 for endpoints that claim 16."
    ) in swaps
    # SageMaker's names are unique: the new generation's endpoint has its own, and says so.
    assert "The SageMaker endpoint is renamed dpd-test-g" in swaps


def test_without_room_it_deletes_first_and_says_what_would_let_it_swap():
    text = report(routing(2, "prefixaware"), routing(2, "roundrobin"))
    (outage,) = outages(text)
    assert outage.startswith("  - endpoint `default/dpd-test`: deleted, then created again")
    assert (
        "It deletes first because a swap would hold 32 GPUs of ml.p5.48xlarge at once (16 each "
        "at their most), and the cluster's groups hold 16 for endpoints that claim 16: 2 more "
        "ml.p5.48xlarge nodes (an instanceCount) would let it swap with no outage."
    ) in outage


def test_a_change_the_operator_makes_in_place_keeps_the_generation():
    threshold = with_endpoints({**dev_endpoint(), "routingThreshold": 8192}, gpu_nodes=4)
    text = report(routing(4, "prefixaware"), threshold)
    assert text.startswith("Stack dev: 1 to update (from main).")
    assert "pdSpec.routingThreshold: 4096 → 8192" in text


def test_a_new_gpu_type_is_an_outage_for_its_nodes_however_the_endpoint_goes():
    def on(kind: str) -> dict:
        config = with_endpoints({**dev_endpoint(), "instanceType": kind}, gpu_nodes=4)
        config["hyperpod-dpd:cluster"]["instanceGroups"][0]["instanceType"] = kind
        return config

    text = report(on("ml.p5.48xlarge"), on("ml.p5en.48xlarge"))
    endpoint, nodes = outages(text)
    assert nodes.startswith("  - HyperPod instance group `p5-dpd`: instanceType")
    # The cluster holds both generations, but the old one's nodes go before the new one starts.
    assert endpoint.startswith(
        "  - endpoint `default/dpd-test`: its deployed generation runs on the ml.p5.48xlarge "
        "nodes that the HyperPod update below takes away"
    )
    assert "add the new type as a group of its own, and remove the ml.p5.48xlarge group" in endpoint
    assert "Swaps (replaced with no outage)" not in text


def test_a_new_endpoint_type_counted_twice_says_so():
    # A group of the new type beside the old: the old generation keeps its nodes, but the
    # program, which sees no deployed state, counts both generations on the new type.
    config = with_endpoints(dev_endpoint(), gpu_nodes=2)
    groups = config["hyperpod-dpd:cluster"]["instanceGroups"]
    groups.append({**groups[0], "name": "p5en-dpd", "instanceType": "ml.p5en.48xlarge"})
    moved = with_endpoints({**dev_endpoint(), "instanceType": "ml.p5en.48xlarge"}, gpu_nodes=2)
    moved["hyperpod-dpd:cluster"]["instanceGroups"] = groups
    (outage,) = outages(report(config, moved))
    assert (
        "a swap would hold 32 GPUs of ml.p5en.48xlarge at once (16 each at their most) (the "
        "program counts both on it: it does not see that the deployed one runs on "
        "ml.p5.48xlarge)"
    ) in outage


def aggregated(gpu_nodes: int, **changes) -> dict:
    return with_endpoints(aggregated_endpoint(**changes), gpu_nodes=gpu_nodes)


def dpd(gpu_nodes: int) -> dict:
    return with_endpoints(dev_endpoint(), gpu_nodes=gpu_nodes)


def test_dpd_to_aggregated_with_room_swaps_and_says_what_becomes_of_the_gpus_and_traffic():
    text = report(dpd(4), aggregated(4))
    assert outages(text) == []
    swaps = text.split("Swaps (replaced with no outage):\n", 1)[1]
    assert (
        "It changes from DPD to aggregated: 1 prefill and 1 decode pods (16 GPUs) give way to "
        "2 serving pods (16 GPUs)."
    ) in swaps
    # Without routingStrategy the aggregated endpoint has no router to alias.
    assert "dpd-test.default.svc.cluster.local is deleted with the old generation" in swaps


def test_aggregated_back_to_dpd_without_room_deletes_first_with_the_gpus_before_and_after():
    text = report(aggregated(2), dpd(2))
    (outage,) = outages(text)
    assert outage.startswith("  - endpoint `default/dpd-test`: deleted, then created again")
    assert (
        "It changes from aggregated to DPD: 2 serving pods (16 GPUs) give way to 1 prefill and "
        "1 decode pods (16 GPUs)."
    ) in outage
    assert "dpd-test.default.svc.cluster.local appears once the new generation serves" in outage


def test_an_aggregated_endpoint_with_routing_keeps_its_address_across_the_change():
    text = report(dpd(4), aggregated(4, routingStrategy="roundrobin"))
    swaps = text.split("Swaps (replaced with no outage):\n", 1)[1]
    assert "It changes from DPD to aggregated" in swaps
    assert "is deleted with the old generation" not in swaps
