"""HyperPod's managed Karpenter: the objects per GPU group, and what node autoscaling refuses."""

from typing import Any

import pytest

from components.cluster.karpenter import node_class, node_pool
from components.cluster.spec import InstanceGroupSpec
from tests.components.cluster.checked import cluster_problems
from tests.support import GPU_GROUP, P, dev_config, dev_with, existing_cluster_config, problem_for

GROUPS = "hyperpod-dpd:cluster.instanceGroups"


def group(**changes: Any) -> InstanceGroupSpec:
    return InstanceGroupSpec.model_validate(
        {
            "name": "p5-dpd",
            "instanceType": "ml.p5.48xlarge",
            "instanceCount": 3,
            "availabilityZoneId": "usw2-az2",
            **changes,
        }
    )


def test_each_gpu_group_gets_a_node_class_listing_it():
    assert node_class(group()) == {
        "apiVersion": "karpenter.sagemaker.amazonaws.com/v1",
        "kind": "HyperpodNodeClass",
        "metadata": {"name": "p5-dpd", "annotations": {"pulumi.com/waitFor": "condition=Ready"}},
        "spec": {"instanceGroups": ["p5-dpd"]},
    }


def test_its_node_pool_is_limited_to_the_group_instance_count_in_gpus():
    pool = node_pool(group(), "1h")
    assert pool["apiVersion"] == "karpenter.sh/v1"
    assert pool["kind"] == "NodePool"
    assert pool["spec"]["limits"] == {"nvidia.com/gpu": "24"}
    assert pool["spec"]["template"]["spec"]["nodeClassRef"] == {
        "group": "karpenter.sagemaker.amazonaws.com",
        "kind": "HyperpodNodeClass",
        "name": "p5-dpd",
    }


def test_a_node_leaves_only_when_empty_and_after_the_consolidation_delay():
    assert node_pool(group(), "45m")["spec"]["disruption"] == {
        "consolidationPolicy": "WhenEmpty",
        "consolidateAfter": "45m",
    }


def autoscaling(**first_group: Any) -> dict:
    config = dev_config()
    config["hyperpod-dpd:cluster"]["autoscaling"] = {"enabled": True}
    config["hyperpod-dpd:cluster"]["instanceGroups"][0].update(first_group)
    return config


def test_the_consolidation_delay_is_a_karpenter_duration():
    config = autoscaling()
    config["hyperpod-dpd:cluster"]["autoscaling"]["consolidateAfter"] = "an hour"
    assert "must be a duration such as 30m, 1h or 1h30m, or Never" in problem_for(
        "hyperpod-dpd:cluster.autoscaling.consolidateAfter", cluster_problems(config)
    )


def test_min_instance_count_above_instance_count_is_refused():
    config = dev_config()
    config["hyperpod-dpd:cluster"]["instanceGroups"][1]["minInstanceCount"] = 2
    assert problem_for(f"{GROUPS}[1].minInstanceCount", cluster_problems(config)) == (
        f"{GROUPS}[1].minInstanceCount: 2 is above instanceCount 1; HyperPod needs "
        "minInstanceCount <= instanceCount"
    )


@pytest.mark.parametrize(
    ("changes", "key", "text"),
    [
        ({"minInstanceCount": 1}, "minInstanceCount", "Karpenter starts GPU groups at 0 nodes"),
        ({"deepHealthChecks": ["InstanceStress"]}, "deepHealthChecks", "60-90 minutes"),
        (
            {"trainingPlanArn": "arn:aws:sagemaker:us-west-2:123456789012:training-plan/p"},
            "trainingPlanArn",
            "provisions on-demand",
        ),
    ],
)
def test_what_karpenter_does_not_support_on_a_gpu_group_is_refused(changes, key, text):
    assert text in problem_for(f"{GROUPS}[0].{key}", cluster_problems(autoscaling(**changes)))


def test_node_autoscaling_of_an_existing_cluster_is_refused():
    config = existing_cluster_config()
    config["hyperpod-dpd:cluster"]["autoscaling"] = {"enabled": True}
    found = problem_for("hyperpod-dpd:cluster.autoscaling.enabled", cluster_problems(config))
    assert "does not manage with cluster.existing" in found


def test_a_group_name_kubernetes_refuses_as_a_node_pool_name_is_refused():
    changes = {"cluster.autoscaling": {"enabled": True}, f"{GPU_GROUP}.name": "P5-DPD"}
    found = cluster_problems(dev_with(changes))
    assert "Karpenter NodePool" in problem_for(f"{P}:{GPU_GROUP}.name", found)


def test_an_autoscaled_group_with_a_lowercase_name_passes():
    changes = {
        "cluster.autoscaling": {"enabled": True},
        f"{GPU_GROUP}.instanceCount": 2,
        f"{GPU_GROUP}.name": "p5-dpd-2",
    }
    assert cluster_problems(dev_with(changes)) == []
