from typing import Any

import pytest

from components.cluster.instance_groups import check_instance_groups, instance_group_args
from components.cluster.spec import InstanceGroupSpec
from tests.components.cluster.checked import cluster_problems
from tests.support import (
    GPU_GROUP,
    GROUPS,
    SYSTEM_GROUP,
    P,
    dev_with,
    p5_group,
    problem_for,
    with_groups,
)
from tests.support import SYSTEM as SYSTEM_CONFIG


def group(**changes: Any) -> InstanceGroupSpec:
    base = {
        "name": "p5",
        "instanceType": "ml.p5.48xlarge",
        "instanceCount": 2,
        "availabilityZoneId": "usw2-az2",
    }
    return InstanceGroupSpec.model_validate({**base, **changes})


SYSTEM = group(name="system", instanceType="ml.c5.4xlarge", instanceCount=1)


def codes(*groups: InstanceGroupSpec) -> list[tuple[str, str]]:
    return [(f.code, f.field) for f in check_instance_groups(groups)]


def test_dpd_gpu_groups_with_a_system_group_pass():
    assert codes(group(), group(name="b300", instanceType="ml.p6-b300.48xlarge"), SYSTEM) == []


@pytest.mark.parametrize("kind", ["ml.g5.48xlarge", "ml.p4d.24xlarge", "ml.g6e.12xlarge"])
def test_gpu_groups_of_types_that_serve_only_aggregated_pass(kind):
    assert codes(group(instanceType=kind), SYSTEM) == []


@pytest.mark.parametrize("kind", ["ml.trn1.32xlarge", "ml.g4dn.xlarge", "ml.inf2.48xlarge"])
def test_accelerated_types_the_stack_has_no_facts_for_are_refused(kind):
    assert codes(group(instanceType=kind), SYSTEM) == [("gpu-type-unknown", "[0].instanceType")]


def test_a_missing_system_group_is_refused():
    assert codes(group()) == [("no-system-group", "")]


@pytest.mark.parametrize("kind", ["ml.c5.2xlarge", "ml.m5.xlarge", "ml.c6g.8xlarge"])
def test_a_too_small_or_arm_system_group_is_refused(kind):
    assert codes(group(), group(name="system", instanceType=kind)) == [
        ("system-group-too-small", "[1].instanceType")
    ]


def test_larger_amd64_cpu_types_make_a_system_group():
    assert codes(group(), group(name="system", instanceType="ml.m7i.8xlarge")) == []


def test_group_names_are_unique():
    assert codes(group(), group(), SYSTEM) == [("duplicate-group", "[1].name")]


def args(spec: InstanceGroupSpec) -> dict:
    return instance_group_args(
        spec,
        execution_role="arn:role",
        subnet_id="subnet-az2",
        security_group_id="sg-efa",
        source_s3_uri="s3://b/p",
        on_create="on_create.sh",
    )


def test_each_group_is_pinned_to_its_az_subnet_with_the_shared_security_group():
    assert args(group())["override_vpc_config"] == {
        "security_group_ids": ["sg-efa"],
        "subnets": ["subnet-az2"],
    }


def test_gpu_groups_run_both_deep_health_checks_by_default_and_cpu_groups_none():
    assert args(group())["on_start_deep_health_checks"] == [
        "InstanceStress",
        "InstanceConnectivity",
    ]
    assert "on_start_deep_health_checks" not in args(SYSTEM)
    assert "on_start_deep_health_checks" not in args(group(deepHealthChecks=[]))


def test_storage_lifecycle_threads_plan_labels_and_taints():
    built = args(
        group(
            threadsPerCore=2,
            ebsVolumeSizeGb=1000,
            trainingPlanArn="arn:aws:sagemaker:us-west-2:123456789012:training-plan/tp",
            labels={"pool": "dpd"},
            taints=[{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],
        )
    )
    assert built["threads_per_core"] == 2
    assert built["instance_storage_configs"] == [{"ebs_volume_config": {"volume_size_in_gb": 1000}}]
    assert built["life_cycle_config"] == {"source_s3_uri": "s3://b/p", "on_create": "on_create.sh"}
    assert built["training_plan_arn"].endswith(":training-plan/tp")
    assert built["kubernetes_config"] == {
        "labels": {"pool": "dpd"},
        "taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}],
    }


# Keyed as the program keys them.


def test_a_gpu_group_of_a_type_the_stack_knows_nothing_of_is_refused():
    found = cluster_problems(
        with_groups(p5_group(), p5_group(name="g4dn", instanceType="ml.g4dn.xlarge"), SYSTEM_CONFIG)
    )
    assert "'ml.g4dn.xlarge' is not allowed; GPU groups run endpoints" in problem_for(
        f"{GROUPS}[1].instanceType", found
    )


def test_a_stack_without_a_system_group_is_refused():
    assert "has no CPU system group" in problem_for(
        GROUPS, cluster_problems(with_groups(*[p5_group()]))
    )


def test_a_too_small_system_group_is_refused():
    small = {**SYSTEM_CONFIG, "instanceType": "ml.c5.2xlarge"}
    found = cluster_problems(with_groups(*[p5_group(), small]))
    assert "too small for the system group" in problem_for(f"{GROUPS}[1].instanceType", found)


def test_every_group_tainted_leaves_the_operator_no_node():
    changes = {
        f"{GPU_GROUP}.taints": [
            {"key": "gpu", "effect": "PreferNoSchedule"},
            {"key": "x", "value": "y", "effect": "NoExecute"},
        ],
        f"{SYSTEM_GROUP}.taints": [{"key": "system", "effect": "NoExecute"}],
    }
    found = cluster_problems(dev_with(changes))
    assert "have no node to run on" in problem_for(f"{P}:{SYSTEM_GROUP}.taints[0]", found)


def test_a_system_group_tainted_for_critical_add_ons_passes():
    changes = {f"{SYSTEM_GROUP}.taints": [{"key": "CriticalAddonsOnly", "effect": "NoSchedule"}]}
    assert cluster_problems(dev_with(changes)) == []
