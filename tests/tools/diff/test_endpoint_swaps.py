"""What a change does to an endpoint's callers, as the diff says it: with rollout keepName (the
default with a SageMaker name) a change the operator cannot take deletes first under the same
names; with newName it swaps to a new generation with no outage where the cluster holds both,
else deletes first; a change of the pods the operator can roll is an update, with or without
room for the roll."""

import copy
from pathlib import Path

import yaml

from tests.support import aggregated_endpoint, dev_endpoint, with_endpoints
from tests.tools.diff.in_process import changes, report, resources

ENDPOINT = "kubernetes:inference.sagemaker.aws.amazon.com/v1:InferenceEndpointConfig"
IMAGE = "lmcache/vllm-openai:v0.4.3"
SWAPS = "Swaps and rolls (no outage):\n"


def routing(gpu_nodes: int, strategy: str, rollout: str = "newName") -> dict:
    endpoint = {**dev_endpoint(), "routingStrategy": strategy, "rollout": rollout}
    return with_endpoints(endpoint, gpu_nodes=gpu_nodes)


def iec(config: dict) -> dict:
    (found,) = [r["inputs"] for r in resources(config) if r["type"] == ENDPOINT]
    return found


def test_dev_keeps_its_sagemaker_name_through_a_routing_change():
    # And through an image change: test_a_sagemaker_endpoint_keeps_its_names_across_changes_....
    dev = with_endpoints(dev_endpoint())
    roundrobin = with_endpoints({**dev_endpoint(), "routingStrategy": "roundrobin"})
    assert {iec(c)["spec"]["endpointName"] for c in (dev, roundrobin)} == {"dpd-test"}
    (outage,) = outages(report(dev, roundrobin))
    assert "It deletes first because it keeps its names (rollout keepName): callers keep " in outage
    assert "dpd-test-default-routing-service.hyperpod-inference-system.svc.cluster.local" in outage
    assert "the load balancer comes back under a new hostname" in outage


def outages(text: str) -> list[str]:
    if "\nOutages:\n" not in text:
        return []
    section = text.split("\nOutages:\n", 1)[1].split("\n\n", 1)[0]
    return section.splitlines()


def test_a_routing_change_with_room_for_both_generations_is_a_swap_with_no_outage():
    text = report(routing(4, "prefixaware"), routing(4, "roundrobin"))
    assert outages(text) == []
    swaps = text.split(SWAPS, 1)[1]
    assert swaps.startswith("  - endpoint `default/dpd-test`: replaced creation-first, with no ")
    assert (
        "once it reports ready, in-cluster dpd-test.default.svc.cluster.local moves to it, "
        in swaps
    )
    assert " answers 58 s more (drainSeconds), then goes with its load balancer" in swaps
    assert (
        "Both hold 32 GPUs of ml.p5.48xlarge at once (16 each at their most), and the "
        "cluster's groups hold 32 for endpoints that claim 16."
    ) in swaps
    # SageMaker's names are unique: the new generation's endpoint has its own, and says so.
    assert "SageMaker: renamed dpd-test-g" in swaps


def test_without_room_it_deletes_first_and_says_what_would_let_it_swap():
    text = report(routing(2, "prefixaware"), routing(2, "roundrobin"))
    (outage,) = outages(text)
    assert outage.startswith("  - endpoint `default/dpd-test`: deleted, then created again")
    assert (
        "It deletes first because a swap would hold 32 GPUs of ml.p5.48xlarge at once (16 each "
        "at their most), and the cluster's groups hold 16 for endpoints that claim 16: 2 more "
        "ml.p5.48xlarge nodes (an instanceCount) would let it swap with no outage."
    ) in outage
    assert "SageMaker: renamed dpd-test-g" in outage


def test_a_change_the_operator_makes_in_place_keeps_the_generation():
    threshold = routing(4, "prefixaware")
    threshold["hyperpod-dpd:endpoints"][0]["routingThreshold"] = 8192
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
    assert SWAPS not in text


def test_a_new_endpoint_type_counted_twice_says_so():
    # A group of the new type beside the old: the old generation keeps its nodes, but the
    # program, which sees no deployed state, counts both generations on the new type.
    renamed = {**dev_endpoint(), "rollout": "newName"}
    config = with_endpoints(renamed, gpu_nodes=2)
    groups = config["hyperpod-dpd:cluster"]["instanceGroups"]
    groups.append({**groups[0], "name": "p5en-dpd", "instanceType": "ml.p5en.48xlarge"})
    # A new type alone rolls the pods; with a new image too, a new generation swaps onto it.
    moved = {**renamed, "instanceType": "ml.p5en.48xlarge", "image": IMAGE}
    moved = with_endpoints(moved, gpu_nodes=2)
    moved["hyperpod-dpd:cluster"]["instanceGroups"] = groups
    (outage,) = outages(report(config, moved))
    assert (
        "a swap would hold 32 GPUs of ml.p5en.48xlarge at once (16 each at their most) (the "
        "program counts the deployed pods on it too: it does not see that they run on "
        "ml.p5.48xlarge)"
    ) in outage


def aggregated(gpu_nodes: int, **changes) -> dict:
    endpoint = aggregated_endpoint(**{"rollout": "newName", **changes})
    return with_endpoints(endpoint, gpu_nodes=gpu_nodes)


def dpd(gpu_nodes: int) -> dict:
    return with_endpoints({**dev_endpoint(), "rollout": "newName"}, gpu_nodes=gpu_nodes)


def test_dpd_to_aggregated_with_room_swaps_and_says_what_becomes_of_the_gpus_and_traffic():
    text = report(dpd(4), aggregated(4))
    assert outages(text) == []
    swaps = text.split(SWAPS, 1)[1]
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
    swaps = text.split(SWAPS, 1)[1]
    assert "It changes from DPD to aggregated" in swaps
    assert "is deleted with the old generation" not in swaps


# AWS's autoscaling walkthrough's trigger, on the endpoint's SageMaker endpoint.
INVOCATIONS = {
    "minReplicas": 1,
    "maxReplicas": 2,
    "cloudWatch": {
        "namespace": "AWS/SageMaker",
        "metricName": "Invocations",
        "dimensions": [
            {"name": "EndpointName", "value": "dpd-test"},
            {"name": "VariantName", "value": "AllTraffic"},
        ],
        "metricStat": "Sum",
        "targetValue": 2,
    },
}


def test_an_aggregated_image_change_rolls_in_place_and_its_autoscaler_follows_the_endpoint():
    def scaled(**changes) -> dict:
        serving = {"replicas": 2, "gpus": 8, "autoscaling": INVOCATIONS}
        return with_endpoints(aggregated_endpoint(serving=serving, **changes))

    before, after = scaled(), scaled(image=IMAGE)
    for config in (before, after):
        spec = iec(config)["spec"]
        dimension = spec["autoScalingSpec"]["cloudWatchTrigger"]["dimensions"][0]
        assert dimension == {"name": "EndpointName", "value": spec["endpointName"]}
    (change,) = [c for c in changes(before, after) if c.type == ENDPOINT]
    assert change.kind == "update"
    (roll,) = report(before, after).split(SWAPS, 1)[1].splitlines()[:1]
    assert roll.startswith("  - endpoint `default/dpd-test`: updated in place; the operator rolls")
    # Two serving pods fill dev's two nodes: the new one finds none.
    assert "The ml.p5.48xlarge nodes have no room for them: they stay Pending" in roll


def test_a_dpd_roll_says_the_pair_keeps_its_kv_format_and_fits_with_a_spare_node():
    pinned = {**dev_endpoint(), "prefill": {"replicas": 1, "gpus": 8, "nodeSelector": {"a": "b"}}}
    base, head = with_endpoints(dev_endpoint(), gpu_nodes=4), with_endpoints(pinned, gpu_nodes=4)
    for config in (base, head):
        config["hyperpod-dpd:cluster"]["instanceGroups"][0]["labels"] = {"a": "b"}
    text = report(base, head)
    (roll,) = text.split(SWAPS, 1)[1].splitlines()[:1]
    assert "Prefill and decode roll apart, old pods handing KV to new ones" in roll
    assert "no room" not in roll and outages(text) == []


def test_the_documented_swap_example_changes_its_routing_with_no_outage():
    example = Path(__file__).parents[3] / "examples" / "Pulumi.swap.yaml"
    base = yaml.safe_load(example.read_text())["config"]
    head = copy.deepcopy(base)
    head["hyperpod-dpd:endpoints"][0]["routingStrategy"] = "roundrobin"
    text = report(base, head)
    assert outages(text) == []
    assert "  - endpoint `default/chat`: replaced creation-first, with no outage" in text
