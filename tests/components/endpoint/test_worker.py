import pytest
from pydantic import ValidationError

from components.endpoint.worker import WorkerResources


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
