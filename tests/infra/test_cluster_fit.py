"""Whether the endpoints and the cluster fit: GPU nodes no endpoint can claim are a warning
naming the group's instanceCount and the cost; too few nodes, an AZ outside the stack, labels
and taints that leave pods nowhere to land are refused naming the key."""

from typing import Any

import pytest

from components.cluster.spec import ClusterSpec
from components.endpoint.spec import EndpointSpec
from infra.cluster_fit import idle_gpu_nodes
from tests.stack_changes import refusal
from tests.support import (
    GPU_GROUP,
    GROUPS,
    SYSTEM,
    dev_config,
    dev_endpoint,
    dev_with,
    p5_group,
    price_table,
    problem_for,
    problems,
    settings_of,
    with_endpoints,
    with_groups,
)

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


def endpoint(**roles: Any) -> EndpointSpec:
    """The dev endpoint (one prefill and one decode pod of 8 GPUs) with these role settings."""
    spec = dev_endpoint()
    for role, settings in roles.items():
        spec[role] |= settings
    return EndpointSpec.model_validate(spec)


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
    # The settings' warnings are what the program logs: test_warnings_do_not_stop_the_....
    warned = settings_of(with_endpoints(dev_endpoint(), gpu_nodes=3)).warnings
    (idle,) = [w for w in warned if "claimed by no endpoint" in w]
    assert idle.startswith(
        "hyperpod-dpd:cluster.instanceGroups[0].instanceCount: 1 of the 3 ml.p5.48xlarge nodes"
    )


# Nodes enough, in one AZ (prefill and decode share it), through the whole program.


def test_an_endpoint_needs_its_instance_type_as_a_group():
    found = problems(with_groups(*[p5_group(instanceType="ml.p5en.48xlarge"), SYSTEM]))
    assert problem_for(GROUPS, found).endswith(
        "no instance group has ml.p5.48xlarge: add one, or change the endpoint's instanceType"
    )


def test_an_endpoint_needs_nodes_for_its_prefill_and_decode_replicas_in_one_az():
    endpoint = {**dev_endpoint(), "prefill": {"replicas": 2}}
    split = [
        p5_group(instanceCount=2),
        p5_group(name="p5-b", instanceCount=1, availabilityZoneId="usw2-az3"),
        SYSTEM,
    ]
    found = problems(with_endpoints(endpoint) | {"hyperpod-dpd:cluster": {"instanceGroups": split}})
    # The message names the key to raise, not the endpoint's instanceType.
    assert problem_for(f"{GROUPS}[0].instanceCount", found) == (
        f"{GROUPS}[0].instanceCount: endpoints[0] (dpd-test) needs 3 ml.p5.48xlarge nodes in "
        "one AZ for 2 prefill x 8 GPUs and 1 decode x 8 GPUs (prefill and decode share an AZ); "
        "usw2-az2 has 2, the most (cluster.instanceGroups[0]); raise its "
        "instanceCount by 1"
    )


def test_endpoints_sharing_a_type_must_fit_its_nodes_together():
    other = {**dev_endpoint(), "name": "other", "endpointName": "other"}
    found = problems(with_endpoints(dev_endpoint(), other, gpu_nodes=3))
    assert problem_for(f"{GROUPS}[0].instanceCount", found) == (
        f"{GROUPS}[0].instanceCount: the endpoints on ml.p5.48xlarge need 4 nodes together for "
        "their 4 pods of 8 GPUs (each pod on one node, pods sharing nodes); the groups have 3: "
        "raise an instanceCount of a ml.p5.48xlarge group"
    )


def small(name: str, gpus: int = 1, **roles: Any) -> dict:
    """An endpoint of one prefill and one decode pod of `gpus` GPUs each."""
    return {
        **dev_endpoint(),
        "name": name,
        "endpointName": name,
        "modelName": "Llama-3.1-8B-Instruct",
        "tensorParallelSize": 1,
        "prefill": {"replicas": 1, "gpus": gpus, **roles},
        "decode": {"replicas": 1, "gpus": gpus, **roles},
    }


def test_small_pods_of_several_endpoints_share_a_node():
    # Four endpoints of 1 prefill + 1 decode GPU: 8 pods of 1 GPU, one p5 node's worth.
    config = with_endpoints(*(small(f"chat-{i}") for i in range(4)), gpu_nodes=1)
    assert len(settings_of(config).stack.endpoints) == 4


def test_pods_that_cannot_share_a_node_need_a_node_each():
    # Two pods of 5 GPUs: 10 GPUs, but no node holds both.
    config = with_endpoints(small("wide", gpus=5), gpu_nodes=1)
    assert problem_for(f"{GROUPS}[0].instanceCount", problems(config)) == (
        f"{GROUPS}[0].instanceCount: endpoints[0] (wide) needs 2 ml.p5.48xlarge nodes in one AZ "
        "for 1 prefill x 5 GPUs and 1 decode x 5 GPUs (prefill and decode share an AZ); usw2-az2 "
        "has 1, the most (cluster.instanceGroups[0]); raise its instanceCount by 1"
    )


# An endpoint pinned to an AZ: by ID or by name, one of the stack's.


def pinned(zone: str, **config: Any) -> dict:
    endpoint = {**dev_endpoint(), "topologySpec": {"availabilityZone": zone}}
    return with_endpoints(endpoint, **config)


TOPOLOGY = "hyperpod-dpd:endpoints[0].topologySpec.availabilityZone"


@pytest.mark.parametrize(
    ("zone", "says"),
    [
        ("usw2-az1", "usw2-az1 is not one of the stack's AZs (usw2-az2, usw2-az3)"),
        ("euw1-az1", "'euw1-az1' is an AZ ID of eu-west-1; the stack deploys to us-west-2"),
        ("eu-west-1a", "'eu-west-1a' is an AZ name of eu-west-1; the stack deploys to us-west-2"),
        ("us-west-2a", "'us-west-2a' is usw2-az1 in this account, which is not one of the stack"),
        ("us-west-2z", "'us-west-2z' is not an AZ of this account; its AZs are us-west-2a"),
        ("zone-b", "'zone-b' is neither an AZ ID (usw2-az2) nor an AZ name (us-west-2b)"),
    ],
)
def test_an_endpoint_az_outside_the_stack_is_refused_naming_the_key(zone, says):
    found = problems(pinned(zone))
    assert all(problem.startswith(f"{TOPOLOGY}: ") for problem in found)
    assert any(says in problem for problem in found)


def test_an_endpoint_pinned_to_an_az_counts_that_azs_nodes():
    groups = [p5_group(), p5_group(name="p5-b", availabilityZoneId="usw2-az3"), SYSTEM]
    endpoint = {
        **dev_endpoint(),
        "prefill": {"replicas": 2},
        "topologySpec": {"availabilityZone": "usw2-az3"},
    }
    config = with_endpoints(endpoint)
    config["hyperpod-dpd:cluster"]["instanceGroups"] = groups
    assert problem_for(f"{GROUPS}[1].instanceCount", problems(config)).endswith(
        "endpoints[0].topologySpec.availabilityZone pins its pods to usw2-az3, which has 2 "
        "(cluster.instanceGroups[1]); raise its instanceCount by 1"
    )


# Labels and taints: the endpoints' pods must be able to land on their groups.
REFUSED = [
    (
        {f"{GPU_GROUP}.taints": [{"key": "gpu", "effect": "NoSchedule"}]},
        f"{GPU_GROUP}.taints[0]",
        "sets no tolerations",
    ),
    (
        {
            "endpoints[0].decode.nodeSelector": {
                "node.kubernetes.io/instance-type": "ml.p5en.48xlarge"
            }
        },
        "endpoints[0].decode.nodeSelector.node.kubernetes.io/instance-type",
        "another instance type",
    ),
    (
        {"endpoints[0].prefill.nodeSelector": {"topology.kubernetes.io/zone": "us-east-1a"}},
        "endpoints[0].prefill.nodeSelector.topology.kubernetes.io/zone",
        "not a zone of us-west-2",
    ),
    (
        {"endpoints[0].decode.nodeSelector": {"kubernetes.io/arch": "arm64"}},
        "endpoints[0].decode.nodeSelector.kubernetes.io/arch",
        "carry kubernetes.io/arch=amd64",
    ),
    (
        {"endpoints[0].prefill.nodeSelector": {"topology.kubernetes.io/region": "us-east-1"}},
        "endpoints[0].prefill.nodeSelector.topology.kubernetes.io/region",
        "not the stack's region us-west-2",
    ),
]


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_pods_that_could_land_on_no_node_are_refused(changes, key, says):
    assert says in refusal(changes, key)


VALID = [
    {
        f"{GPU_GROUP}.taints": [
            {"key": "example.com/gpu", "effect": "PreferNoSchedule"},
            {"key": "a", "value": "b", "effect": "NoSchedule"},
        ],
        "cluster.instanceGroups[2]": {
            "name": "p5-open",
            "instanceType": "ml.p5.48xlarge",
            "instanceCount": 1,
            "availabilityZoneId": "usw2-az2",
        },
    },
    {
        "endpoints[0].decode.nodeSelector": {
            "node.kubernetes.io/instance-type": "ml.p5.48xlarge",
            "topology.kubernetes.io/zone": "us-west-2b",
            "topology.kubernetes.io/region": "us-west-2",
            "kubernetes.io/arch": "amd64",
        }
    },
    {
        "cluster.instanceGroups[0].labels": {"tier": 1},
        "endpoints[0].prefill.nodeSelector": {"tier": 1},
    },
]


@pytest.mark.parametrize("changes", VALID)
def test_pods_with_a_node_to_land_on_pass(changes):
    assert settings_of(dev_with(changes)).stack.endpoints
