from decimal import Decimal
from typing import Any

import pytest
from pydantic import ValidationError

from components.cluster.instance_types import DPD_INSTANCE_TYPES, GPU_INSTANCE_TYPES
from components.core.kubernetes_names import quantity_value
from components.core.units import GIB
from components.endpoint.spec import EndpointSpec
from components.endpoint.worker import (
    DPD_WORKER_RESOURCES,
    NODE_SHARE,
    WorkerResources,
    default_worker_resources,
)
from tests.support import (
    aggregated_endpoint,
    endpoint_configs,
    render,
    with_endpoints,
)


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


# What the pods request without workerResources.


def on_a_node_of(instance_type: str, gpus: int, **changes: Any) -> dict[str, Any]:
    """The dev stack serving Llama 3.1 8B aggregated on `instance_type`, pods of `gpus` GPUs."""
    endpoint = aggregated_endpoint(
        modelName="Llama-3.1-8B-Instruct",
        instanceType=instance_type,
        tensorParallelSize=gpus,
        serving={"replicas": 2, "gpus": gpus},
        **changes,
    )
    config = with_endpoints(endpoint, gpu_nodes=2)
    config["hyperpod-dpd:cluster"]["instanceGroups"][0]["instanceType"] = instance_type
    return config


def requested(resources: dict[str, str]) -> tuple[Decimal, Decimal]:
    """CPUs and bytes of memory."""
    return quantity_value(resources["cpu"]), quantity_value(resources["memory"])


@pytest.mark.parametrize(
    "instance_type, gpus", [("ml.g5.12xlarge", 4), ("ml.g6e.12xlarge", 4), ("ml.g5.8xlarge", 1)]
)
def test_an_aggregated_endpoint_without_worker_resources_requests_what_its_node_has(
    instance_type, gpus
):
    (built,) = endpoint_configs(render(on_a_node_of(instance_type, gpus)))
    resources = built["spec"]["worker"]["resources"]
    node = GPU_INSTANCE_TYPES[instance_type]
    cpu, memory = requested(resources["requests"])
    assert 0 < cpu <= node.vcpu_count * NODE_SHARE
    assert 0 < memory <= node.memory_gib * GIB * NODE_SHARE
    assert resources["limits"] == resources["requests"]


@pytest.mark.parametrize("instance_type", GPU_INSTANCE_TYPES)
def test_the_pods_a_node_holds_by_gpus_fit_in_half_of_it_at_any_pod_size(instance_type):
    node = GPU_INSTANCE_TYPES[instance_type]
    for gpus in range(1, node.gpus + 1):
        cpu, memory = requested(default_worker_resources(instance_type, gpus).requests)
        pods = node.gpus // gpus
        assert cpu >= 1 and memory >= GIB, f"{gpus} GPUs: {cpu} CPUs, {memory} bytes"
        assert pods * cpu <= node.vcpu_count * NODE_SHARE, f"{pods} pods of {gpus} GPUs"
        assert pods * memory <= node.memory_gib * GIB * NODE_SHARE, f"{pods} pods of {gpus} GPUs"


def test_a_dpd_endpoint_requests_what_it_always_has_and_so_does_a_whole_p5_served_aggregated():
    for instance_type in DPD_INSTANCE_TYPES:
        assert default_worker_resources(instance_type, None) == DPD_WORKER_RESOURCES
    # A whole p5 served aggregated keeps the manifest it had, and so its generation.
    assert default_worker_resources("ml.p5.48xlarge", 8) == DPD_WORKER_RESOURCES


def test_worker_resources_the_user_writes_are_kept_as_written():
    written = {"requests": {"cpu": "6", "memory": "30Gi"}, "limits": {"memory": "40Gi"}}
    endpoint = EndpointSpec.model_validate(
        aggregated_endpoint(instanceType="ml.g5.12xlarge", workerResources=written)
    )
    assert endpoint.worker_resources.model_dump() == written
    empty = aggregated_endpoint(instanceType="ml.g5.12xlarge", workerResources={})
    assert EndpointSpec.model_validate(empty).worker_resources.with_gpus(4) == {
        "requests": {"nvidia.com/gpu": "4"},
        "limits": {"nvidia.com/gpu": "4"},
    }
