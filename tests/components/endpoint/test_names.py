"""Every name an endpoint makes fits what its owner takes, or the name is refused with the key
and the limit; names another endpoint's generations would take are refused."""

from typing import Any

import pytest

from components.endpoint.checks import check_endpoints
from components.endpoint.names import check_names
from components.endpoint.spec import EndpointSpec
from tests.components.endpoint.test_manifest import MINIMAL

SERVING = {"instanceType": "ml.g6e.12xlarge", "tensorParallelSize": 4}


def spec(**changes: Any) -> EndpointSpec:
    return EndpointSpec.model_validate({**MINIMAL, **changes})


def refused(endpoint: EndpointSpec) -> list[tuple[str, str]]:
    return [(f.field, f.message) for f in check_names(endpoint)]


def derived_names(endpoint: EndpointSpec) -> list[str]:
    obj = f"{endpoint.name}-g00000" if endpoint.renames else endpoint.name
    names = [obj]
    if endpoint.intelligent_routing:
        names += [
            f"{obj}-{endpoint.namespace}-router",
            f"{obj}-{endpoint.namespace}-routing-service",
        ]
    if endpoint.serving and endpoint.serving.autoscaling:
        names.append(f"{obj}-scaled-object")
    return names


ENDPOINTS = [
    {**SERVING, "serving": {"replicas": 1, "gpus": 4}},
    {**SERVING, "serving": {"replicas": 1, "gpus": 4}, "rollout": "newName"},
    {**SERVING, "serving": {"replicas": 1, "gpus": 4, "autoscaling": {"maxReplicas": 2}}},
    {"endpointName": "chat"},
    {},
]


@pytest.mark.parametrize("length", range(57, 64))
@pytest.mark.parametrize("settings", ENDPOINTS)
def test_a_long_name_makes_no_object_name_over_63_or_is_refused_naming_the_limit(settings, length):
    endpoint = spec(name="e" * length, **settings)
    found = refused(endpoint)
    if found:
        ((field, message),) = found
        assert field == "name" and "Kubernetes takes 63: name may have at most" in message
    else:
        assert max(len(n) for n in derived_names(endpoint)) <= 63


def test_the_limit_is_what_the_longest_derived_name_leaves():
    # 40 characters, -g<digest>, -default and -routing-service: 71.
    ((_, message),) = refused(spec(name="e" * 40))
    assert "the operator's routing Service" in message and ", 71 characters," in message
    assert message.endswith(
        "name may have at most 32 characters here (with rollout newName, -g<digest> adds 7)"
    )
    scaled = {**SERVING, "serving": {"replicas": 1, "gpus": 4, "autoscaling": {"maxReplicas": 2}}}
    ((_, message),) = refused(spec(name="e" * 50, **scaled))
    assert "KEDA's ScaledObject" in message and message.endswith("at most 49 characters here")


def test_sagemaker_names_leave_room_for_the_generation_only_when_it_renames():
    long = {"endpointName": "e" * 57, "modelName": "M" * 57}
    assert refused(spec(**long)) == []
    assert [field for field, _ in refused(spec(**long, rollout="newName"))] == [
        "endpointName",
        "modelName",
    ]


def test_a_name_starting_with_a_digit_makes_no_service():
    ((field, message),) = refused(spec(name="70b", endpointName="chat"))
    assert field == "name" and "a Service's name starts with a letter" in message


def test_an_adopted_endpoint_keeps_its_names():
    ((field, _),) = refused(spec(adopted=True, rollout="newName"))
    assert field == "rollout"


def across(*endpoints: dict[str, Any]) -> list[tuple[int, str, str]]:
    specs = [spec(**e) for e in endpoints]
    return [(i, f.code, f.field) for i, f in check_endpoints(specs)]


def test_a_name_like_another_endpoints_generation_is_refused():
    adopted = across({"name": "chat"}, {"name": "chat-g1a2b3", "adopted": True})
    assert (1, "named-like-generation", "name") in adopted
    assert across(
        {"name": "a", "endpointName": "chat"},
        {"name": "b", "endpointName": "chat-g00000", "modelName": "Llama-3.1-70B-Instruct"},
    ) == [(1, "named-like-generation", "endpointName")]
    # Another namespace holds other objects; names of its own kind are fine.
    assert across({"name": "chat"}, {"name": "chat-g1a2b3", "namespace": "other"}) == []
    assert across({"name": "chat"}, {"name": "chat-gpu"}) == []


def test_two_sagemaker_endpoints_creating_one_model_name_are_warned_about():
    assert across({"name": "a", "endpointName": "a"}, {"name": "b", "endpointName": "b"}) == [
        (1, "duplicate-model-name", "modelName")
    ]
    assert across({"name": "a"}, {"name": "b"}) == []  # no SageMaker model without endpointName
