from decimal import Decimal
from typing import Any

import pytest
from pydantic import ValidationError

from components.cluster.instance_types import DPD_INSTANCE_TYPES, GPU_INSTANCE_TYPES
from components.core.kubernetes_names import quantity_value
from components.core.units import GIB
from components.endpoint.checks import check_endpoint
from components.endpoint.manifest import build_manifest
from components.endpoint.spec import EndpointSpec
from components.endpoint.worker import (
    DPD_WORKER_RESOURCES,
    NODE_SHARE,
    WorkerResources,
    check_worker_fits_node,
    default_worker_resources,
)
from tests.components.endpoint.items import endpoint_problems
from tests.support import aggregated_endpoint, dev_endpoint, problem_for


def test_requests_alone_leave_the_limits_to_the_gpus():
    resources = WorkerResources.model_validate({"requests": {"cpu": "6", "memory": "30Gi"}})
    assert resources.with_gpus(1) == {
        "requests": {"cpu": "6", "memory": "30Gi", "nvidia.com/gpu": "1"},
        "limits": {"nvidia.com/gpu": "1"},
    }


def test_limits_alone_are_written_alone():
    resources = WorkerResources.model_validate({"limits": {"memory": "64Gi"}})
    assert resources.with_gpus(2) == {
        "requests": {"nvidia.com/gpu": "2"},
        "limits": {"memory": "64Gi", "nvidia.com/gpu": "2"},
    }


@pytest.mark.parametrize(
    "requests, limits",
    [({"cpu": "500m"}, {"cpu": "1"}), ({"memory": "1Gi"}, {"memory": "1024Mi"})],
)
def test_a_request_at_or_below_its_limit_in_other_units_passes(requests, limits):
    WorkerResources.model_validate({"requests": requests, "limits": limits})


@pytest.mark.parametrize(
    "value, says",
    [
        ({"requests": {"memory": "2Gi"}, "limits": {"memory": "2000Mi"}}, "above its limit"),
        ({"limits": {"nvidia.com/gpu": "1"}}, "written from the roles' gpus"),
        ({"requests": {"example.com/fpga": "1"}}, "extended resource"),
        ({"requests": {"example.com/fpga": "1"}, "limits": {"example.com/fpga": "2"}}, "extended"),
    ],
)
def test_what_kubernetes_refuses_is_refused(value, says):
    with pytest.raises(ValidationError, match=says):
        WorkerResources.model_validate(value)


def test_an_extended_resource_at_its_limit_passes():
    value = {"requests": {"example.com/fpga": "1"}, "limits": {"example.com/fpga": "1"}}
    assert WorkerResources.model_validate(value).with_gpus(1)["limits"]["example.com/fpga"] == "1"


# What the pods request without workerResources, and requests no node could hold.


def on_a_node_of(instance_type: str, gpus: int, **changes: Any) -> dict[str, Any]:
    """The dev endpoint serving Llama 3.1 8B aggregated on `instance_type`, pods of `gpus` GPUs."""
    return aggregated_endpoint(
        modelName="Llama-3.1-8B-Instruct",
        instanceType=instance_type,
        tensorParallelSize=gpus,
        serving={"replicas": 2, "gpus": gpus},
        **changes,
    )


def requested(resources: dict[str, str]) -> tuple[Decimal, Decimal]:
    """CPUs and bytes of memory."""
    return quantity_value(resources["cpu"]), quantity_value(resources["memory"])


@pytest.mark.parametrize(
    "instance_type, gpus", [("ml.g5.12xlarge", 4), ("ml.g6e.12xlarge", 4), ("ml.g5.8xlarge", 1)]
)
def test_an_aggregated_endpoint_without_worker_resources_requests_what_its_node_has(
    instance_type, gpus
):
    endpoint = EndpointSpec.model_validate(on_a_node_of(instance_type, gpus))
    built = build_manifest(endpoint, model_bucket="b", region="us-west-2")
    resources = built["spec"]["worker"]["resources"]
    node = GPU_INSTANCE_TYPES[instance_type]
    cpu, memory = requested(resources["requests"])
    assert 0 < cpu <= node.vcpu_count * NODE_SHARE
    assert 0 < memory <= node.memory_gib * GIB * NODE_SHARE
    # Requested, not limited, as AWS's colocated samples: only the GPUs are limited.
    assert resources["limits"] == {"nvidia.com/gpu": str(gpus)}


@pytest.mark.parametrize("instance_type", GPU_INSTANCE_TYPES)
def test_the_pods_a_node_holds_by_gpus_fit_in_half_of_it_at_any_pod_size(instance_type):
    node = GPU_INSTANCE_TYPES[instance_type]
    for gpus in range(1, node.gpus + 1):
        cpu, memory = requested(default_worker_resources(instance_type, gpus).requests)
        pods = node.gpus // gpus
        assert cpu >= 1 and memory >= GIB, f"{gpus} GPUs: {cpu} CPUs, {memory} bytes"
        assert pods * cpu <= node.vcpu_count * NODE_SHARE, f"{pods} pods of {gpus} GPUs"
        assert pods * memory <= node.memory_gib * GIB * NODE_SHARE, f"{pods} pods of {gpus} GPUs"


def test_a_dpd_endpoint_requests_what_it_always_has_and_a_whole_p5_served_aggregated_as_much():
    for instance_type in DPD_INSTANCE_TYPES:
        assert default_worker_resources(instance_type, None) == DPD_WORKER_RESOURCES
    whole = default_worker_resources("ml.p5.48xlarge", 8)
    assert (whole.requests, whole.limits) == (DPD_WORKER_RESOURCES.requests, {})


def test_worker_resources_the_user_writes_are_kept_as_written():
    written = {"requests": {"cpu": "6", "memory": "30Gi"}, "limits": {"memory": "40Gi"}}
    endpoint = EndpointSpec.model_validate(
        aggregated_endpoint(instanceType="ml.g5.12xlarge", workerResources=written)
    )
    assert endpoint.worker_resources.model_dump(exclude={"as_written"}) == written
    empty = aggregated_endpoint(instanceType="ml.g5.12xlarge", workerResources={})
    assert EndpointSpec.model_validate(empty).worker_resources.with_gpus(4) == {
        "requests": {"nvidia.com/gpu": "4"},
        "limits": {"nvidia.com/gpu": "4"},
    }


# ml.g5.12xlarge: 48 vCPUs and 192 GiB.
ABOVE_THE_NODE = [
    ({"cpu": "49"}, "requests.cpu"),
    ({"cpu": "48001m"}, "requests.cpu"),
    ({"memory": "193Gi"}, "requests.memory"),
    ({"memory": "196609Mi"}, "requests.memory"),
    ({"memory": "1T"}, "requests.memory"),
    ({"limits": {"cpu": "64"}}, "limits.cpu"),
    ({"requests": {"memory": "200Gi"}, "limits": {}}, "requests.memory"),
]
WITHIN_THE_NODE = [
    {"cpu": "48", "memory": "192Gi"},
    {"cpu": "30000m", "memory": "196608Mi"},
    {"memory": "200G"},
    {"requests": {"cpu": "6"}, "limits": {"cpu": "96"}},
]


@pytest.mark.parametrize("resources, field", ABOVE_THE_NODE)
def test_requests_above_the_node_are_refused_naming_the_key(resources, field):
    assert [
        (f.level, f.field)
        for f in check_worker_fits_node(
            WorkerResources.model_validate(resources), "ml.g5.12xlarge", 4
        )
    ] == [("error", f"workerResources.{field}")]


@pytest.mark.parametrize("resources", WITHIN_THE_NODE)
def test_requests_within_the_node_pass(resources):
    assert (
        check_worker_fits_node(WorkerResources.model_validate(resources), "ml.g5.12xlarge", 4) == []
    )


def test_the_dpd_default_on_a_g5_is_refused_naming_the_key():
    item = on_a_node_of("ml.g5.12xlarge", 4, workerResources=DPD_WORKER_RESOURCES.requests)
    found = endpoint_problems(item)
    cpu = problem_for("workerResources.requests.cpu", found)
    assert "96 is more than one ml.g5.12xlarge node has (48 vCPUs" in cpu
    memory = problem_for("workerResources.requests.memory", found)
    assert "1024Gi is more than one ml.g5.12xlarge node has (192 GiB" in memory


def test_a_dpd_endpoint_is_not_held_to_its_worker_resources():
    # The operator ignores worker.resources for DPD pods: theirs are the roles'.
    endpoint = EndpointSpec.model_validate(
        {**dev_endpoint(), "workerResources": {"cpu": "500", "memory": "4Ti"}}
    )
    assert [f for f in check_endpoint(endpoint) if f.code == "worker-above-node"] == []


def test_requests_that_one_of_the_instance_types_holds_pass_and_above_all_name_the_largest():
    # ml.g5.12xlarge: 48 vCPUs; ml.p4d.24xlarge: 96 vCPUs.
    either = ["ml.g5.12xlarge", "ml.p4d.24xlarge"]
    fits_p4d = WorkerResources.model_validate({"cpu": "90"})
    assert check_worker_fits_node(fits_p4d, "ml.g5.12xlarge", 1, either) == []
    (above,) = check_worker_fits_node(
        WorkerResources.model_validate({"cpu": "97"}), "ml.g5.12xlarge", 1, either
    )
    assert "97 is more than one ml.p4d.24xlarge node has (96 vCPUs" in above.message


def test_pods_a_node_affinity_places_are_not_held_to_the_type_the_stack_sizes_them_for():
    # A hostname picks the node, whatever its type; ml.g5.xlarge has 4 vCPUs.
    hostname = {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-1"]}
    affinity = {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [{"matchExpressions": [hostname]}]
        }
    }
    written = {"instanceType": "ml.g5.xlarge", "workerResources": {"cpu": "6"}}
    placed = aggregated_endpoint(serving={"gpus": 1}, tensorParallelSize=1, **written)
    codes = [f.code for f in check_endpoint(EndpointSpec.model_validate(placed))]
    assert "worker-above-node" in codes
    by_affinity = EndpointSpec.model_validate({**placed, "nodeAffinity": affinity})
    assert "worker-above-node" not in [f.code for f in check_endpoint(by_affinity)]


def test_an_adopted_endpoint_above_its_node_is_warned_not_refused():
    above = aggregated_endpoint(
        instanceType="ml.g5.12xlarge",
        tensorParallelSize=4,
        serving={"gpus": 4},
        workerResources={"cpu": "96"},
    )
    for adopted, level in ((False, "error"), (True, "warning")):
        endpoint = EndpointSpec.model_validate({**above, "adopted": adopted})
        found = [f for f in check_endpoint(endpoint) if f.code == "worker-above-node"]
        assert [(f.level, f.field) for f in found] == [(level, "workerResources.requests.cpu")]
