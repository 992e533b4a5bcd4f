"""How a change reaches an endpoint's callers: a caller's names change only with rollout newName,
and then only for a change the operator cannot take in place; an aggregated endpoint, with no
prefill-decode pair to break, takes its pods' changes by rolling them."""

from typing import Any

import pytest

from components.endpoint.generation import (
    AGGREGATED_REPLACES,
    DPD_REPLACES,
    drain_seconds,
    generation,
    generation_name,
    stable_service,
)
from components.endpoint.manifest import build_manifest, endpoint_generation
from components.endpoint.spec import EndpointSpec
from tests.components.endpoint.test_manifest import MINIMAL
from tests.support import dev_endpoint

AGGREGATED = {"instanceType": "ml.g6e.12xlarge", "tensorParallelSize": 4}


def spec(**changes: Any) -> EndpointSpec:
    return EndpointSpec.model_validate({**MINIMAL, **changes})


def digest(**changes: Any) -> str:
    return endpoint_generation(spec(**changes), model_bucket="weights", region="us-east-2")


def aggregated(**changes: Any) -> dict[str, Any]:
    return {**AGGREGATED, "serving": {"replicas": 1, "gpus": 4}, **changes}


def names(endpoint: EndpointSpec) -> tuple[str, str | None, str]:
    """The object's, the SageMaker endpoint's and the SageMaker model's names, as deployed."""
    generation_digest = endpoint_generation(endpoint, model_bucket="w", region="us-east-2")
    built = build_manifest(endpoint, model_bucket="w", region="us-east-2", digest=generation_digest)
    return (
        built["metadata"]["name"],
        built["spec"].get("endpointName"),
        built["spec"]["modelName"],
    )


@pytest.mark.parametrize(
    "change",
    [
        {"routingStrategy": "roundrobin"},
        {"image": "lmcache/vllm-openai:v0.4.3"},
        {"pdBufferSize": "16GiB"},
    ],
)
def test_a_sagemaker_endpoint_keeps_its_names_across_changes_unless_told_to_rename(change):
    named = {"endpointName": "chat-sm"}
    assert names(spec(**named, **change)) == ("chat", "chat-sm", "Llama-3.3-70B-Instruct")
    renamed = names(spec(**named, **change, rollout="newName"))
    assert renamed[0].startswith("chat-g") and renamed[1] == f"chat-sm-{renamed[0][5:]}"
    # Both generations create a SageMaker model at once: its name carries the generation too.
    assert renamed[2] == f"Llama-3.3-70B-Instruct-{renamed[0][5:]}"


def test_the_default_rollout_keeps_what_callers_hold_and_swaps_behind_the_stacks_address():
    assert not spec(endpointName="chat-sm").renames
    assert spec().renames  # called only in the cluster, through the stack's alias
    assert not spec(**aggregated()).renames  # no router: only its load balancer to call
    assert not spec(adopted=True).renames
    assert not spec(rollout="keepName").renames


# The operator takes these without touching the pods, or rolls the pods with no change to the
# KV that prefill hands decode.
DPD_ROLLS = [
    {"prefill": {"replicas": 2}},
    {"decode": {"replicas": 2, "autoscaling": {"minReplicas": 1, "maxReplicas": 3}}},
    {"routingThreshold": 8192},
    {"tags": {"team": "a"}},
    {"healthCheckPath": "/ping"},
    {"instanceType": "ml.p5en.48xlarge"},
]
# Changes that alter what makes the KV, or that no live object takes.
DPD_REPLACES_ON = [
    {"routingStrategy": "roundrobin"},
    {"image": "lmcache/vllm-openai:v0.4.3"},
    {"workerArgs": ["--enable-prefix-caching"]},
    {"environmentVariables": {"HF_HOME": "/tmp/hf"}},
    {"pdBufferSize": "16GiB"},
    {"modelSource": {"s3": {"prefix": "other-weights"}}},
    {"endpointName": "chat-prod"},
    aggregated(),
]


@pytest.mark.parametrize("change", DPD_ROLLS)
def test_a_dpd_change_the_pair_survives_keeps_the_generation(change):
    assert digest(**change) == digest()


@pytest.mark.parametrize("change", DPD_REPLACES_ON)
def test_a_dpd_change_of_its_kv_or_of_what_no_live_object_takes_brings_a_new_generation(change):
    assert digest(**change) != digest()


@pytest.mark.parametrize(
    "change",
    [
        {"image": "lmcache/vllm-openai:v0.4.3"},
        {"workerArgs": ["--enable-prefix-caching"]},
        {"environmentVariables": {"HF_HOME": "/tmp/hf"}},
        {"instanceType": "ml.g6e.24xlarge"},
    ],
)
def test_an_aggregated_endpoint_rolls_what_changes_its_pods(change):
    assert digest(**aggregated(**change)) == digest(**aggregated())


def test_an_aggregated_endpoint_is_replaced_only_for_routing_names_or_its_mode():
    assert digest(**aggregated(routingStrategy="roundrobin")) != digest(**aggregated())
    assert digest(**aggregated(endpointName="chat")) != digest(**aggregated())
    assert "spec.pdSpec" in AGGREGATED_REPLACES and "spec.replicas" in DPD_REPLACES


def test_the_digest_reads_only_its_paths_in_any_key_order():
    paths = ("spec.a", "spec.b.c")
    assert generation({"a": 1, "b": {"c": 2}}, paths) == generation({"b": {"c": 2}, "a": 1}, paths)
    assert generation({"a": 1, "z": 3}, paths) == generation({"a": 1}, paths)
    assert len(digest()) == 5 and int(digest(), 16) >= 0
    assert generation_name("chat", "0a1b2") == "chat-g0a1b2"


def test_the_generation_names_its_pods_queries_with_rollout_new_name():
    endpoint = spec(prefill={"replicas": 1, "autoscaling": {"minReplicas": 1, "maxReplicas": 2}})
    manifest = build_manifest(endpoint, model_bucket="w", region="us-east-2", digest="0a1b2")
    assert manifest["metadata"]["name"] == "chat-g0a1b2"
    query = manifest["spec"]["pdSpec"]["autoScalingSpec"]["prefillAutoScaling"]["prometheusTrigger"]
    assert 'pod_name=~"prefill-chat-g0a1b2-' in query["query"]


def test_the_stable_service_is_an_alias_of_the_generations_router():
    # Kubernetes' schema checks it in the renders (tests/infra/test_kubernetes_manifests.py).
    service = stable_service("chat", "default", "chat-g0a1b2-default-routing-service.x", 443)
    assert service["spec"] == {
        "type": "ExternalName",
        "externalName": "chat-g0a1b2-default-routing-service.x",
        "ports": [{"name": "http", "port": 443, "protocol": "TCP"}],
    }


def test_the_drain_lasts_the_workloads_longest_request_and_the_dns_cache():
    # dev: 2,000 ms to the first token, then 512 tokens at 50 ms: 27.6 s, and CoreDNS's 30 s.
    assert drain_seconds(EndpointSpec.model_validate(dev_endpoint())) == 58
    assert drain_seconds(spec()) == 300  # no workload to say how long a request takes
    assert drain_seconds(spec(drainSeconds=20)) == 20
