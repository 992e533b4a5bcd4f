"""An endpoint's generation changes exactly when the operator cannot apply a change in place,
so that Pulumi replaces it creation-first under a new name; what it can apply keeps the name."""

from typing import Any

import pytest

from components.endpoint.generation import (
    check_sagemaker_name,
    generation,
    generation_name,
    stable_service,
)
from components.endpoint.manifest import (
    build_manifest,
    endpoint_generation,
    sagemaker_endpoint_name,
)
from components.endpoint.spec import EndpointSpec
from tests.components.endpoint.test_manifest import MINIMAL


def spec(**changes: Any) -> EndpointSpec:
    return EndpointSpec.model_validate({**MINIMAL, **changes})


def digest(**changes: Any) -> str:
    return endpoint_generation(spec(**changes), model_bucket="weights", region="us-east-2")


# Changes the operator applies to a live endpoint: a scale, KEDA's triggers, the router's
# threshold, SageMaker's tags.
IN_PLACE = [
    {"prefill": {"replicas": 2}},
    {"decode": {"replicas": 2, "autoscaling": {"minReplicas": 1, "maxReplicas": 3}}},
    {"routingThreshold": 8192},
    {"tags": {"team": "a"}},
]
# Changes that roll the prefill and decode pods apart (old pods beside new ones, a KV-format
# risk when what they run differs) or that the operator cannot make at all.
NEW_GENERATION = [
    {"routingStrategy": "roundrobin"},
    {"image": "lmcache/vllm-openai:v0.4.3"},
    {"workerArgs": ["--enable-prefix-caching"]},
    {"environmentVariables": {"HF_HOME": "/tmp/hf"}},
    {"pdBufferSize": "16GiB"},
    {"modelSource": {"s3": {"prefix": "other-weights"}}},
    {"instanceType": "ml.p5en.48xlarge"},
    {"endpointName": "chat-prod"},
]


@pytest.mark.parametrize("change", IN_PLACE)
def test_a_change_the_operator_makes_in_place_keeps_the_generation(change):
    assert digest(**change) == digest()


@pytest.mark.parametrize("change", NEW_GENERATION)
def test_a_change_it_cannot_make_in_place_brings_a_new_generation(change):
    assert digest(**change) != digest()


def test_the_digest_ignores_key_order_and_names_five_hex_digits():
    assert generation({"a": 1, "b": {"c": 2}}, ()) == generation({"b": {"c": 2}, "a": 1}, ())
    assert len(digest()) == 5 and int(digest(), 16) >= 0
    assert generation_name("chat", "0a1b2") == "chat-g0a1b2"


def test_the_generation_names_the_object_its_pods_queries_and_its_sagemaker_endpoint():
    endpoint = spec(
        endpointName="chat-sm",
        prefill={"replicas": 1, "autoscaling": {"minReplicas": 1, "maxReplicas": 2}},
    )
    manifest = build_manifest(endpoint, model_bucket="w", region="us-east-2", digest="0a1b2")
    assert manifest["metadata"]["name"] == "chat-g0a1b2"
    assert manifest["spec"]["endpointName"] == "chat-sm-g0a1b2"
    assert sagemaker_endpoint_name(endpoint, "0a1b2") == "chat-sm-g0a1b2"
    query = manifest["spec"]["pdSpec"]["autoScalingSpec"]["prefillAutoScaling"]["prometheusTrigger"]
    assert 'pod_name=~"prefill-chat-g0a1b2-' in query["query"]


def test_without_a_generation_the_names_are_the_endpoints_own():
    manifest = build_manifest(spec(endpointName="chat-sm"), model_bucket="w", region="r")
    assert (manifest["metadata"]["name"], manifest["spec"]["endpointName"]) == ("chat", "chat-sm")
    assert "annotations" not in manifest["metadata"]


def test_the_stable_service_is_an_alias_of_the_generations_router():
    # Kubernetes' schema checks it in the renders (tests/infra/test_kubernetes_manifests.py).
    service = stable_service("chat", "default", "chat-g0a1b2-default-routing-service.x", 443)
    assert service["spec"] == {
        "type": "ExternalName",
        "externalName": "chat-g0a1b2-default-routing-service.x",
        "ports": [{"name": "http", "port": 443, "protocol": "TCP"}],
    }


def test_an_endpoint_name_leaves_room_for_the_generation():
    assert check_sagemaker_name("e" * 56) == []
    (finding,) = check_sagemaker_name("e" * 57)
    assert (finding.code, finding.field) == ("endpoint-name-length", "endpointName")
    assert finding.message.endswith(
        "adds -g<digest> (7 characters) to it, and SageMaker takes 63, so it may have 56"
    )
    # An adopted endpoint's SageMaker endpoint keeps its name: the setting's 63 hold.
    assert check_sagemaker_name("e" * 63, generations=False) == []
