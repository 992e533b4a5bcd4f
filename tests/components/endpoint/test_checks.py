from typing import Any

import pytest

from components.endpoint.checks import check_endpoint, check_endpoints
from components.endpoint.spec import DpdEndpointSpec
from tests.components.endpoint.test_manifest import MINIMAL


def spec(**changes: Any) -> DpdEndpointSpec:
    return DpdEndpointSpec.model_validate({**MINIMAL, **changes})


def codes(**changes: Any) -> dict[str, list[tuple[str, str]]]:
    found: dict[str, list[tuple[str, str]]] = {}
    for f in check_endpoint(spec(**changes)):
        found.setdefault(f.code, []).append((f.level, f.field))
    return found


def test_the_documented_shape_has_nothing_to_report():
    assert check_endpoint(spec()) == []


@pytest.mark.parametrize(
    "changes, code, level, field",
    [
        ({"prefill": {"gpus": 9}}, "gpus-exceed-node", "error", "prefill.gpus"),
        ({"decode": {"gpus": 4}}, "gpus-below-tp", "error", "decode.gpus"),
        ({"tensorParallelSize": 4}, "gpus-idle", "warning", "prefill.gpus"),
        ({"workerArgs": ["--max-model-len", "8192"]}, "typed-flag-in-args", "error", "workerArgs"),
        ({"decode": {"args": ["--max-num-seqs=8"]}}, "typed-flag-in-args", "error", "decode.args"),
        (
            {"environmentVariables": {"PD_BUFFER_SIZE": "1"}},
            "pd-buffer-in-env",
            "error",
            "environmentVariables.PD_BUFFER_SIZE",
        ),
        (
            {"environmentVariables": {"PYTHONHASHSEED": "42"}},
            "pinned-env",
            "error",
            "environmentVariables.PYTHONHASHSEED",
        ),
        (
            {"environmentVariables": {"LMCACHE_SAVE_DECODE_CACHE": "True"}},
            "pinned-env",
            "error",
            "environmentVariables.LMCACHE_SAVE_DECODE_CACHE",
        ),
        (
            {"routingStrategy": "kvaware"},
            "kvaware-needs-completions",
            "error",
            "invocationEndpoint",
        ),
        ({"prefill": {"replicas": 2}}, "prefixaware-many-prefills", "warning", "routingStrategy"),
        (
            {"prefill": {"autoscaling": {"minReplicas": 1, "maxReplicas": 3}}},
            "prefixaware-many-prefills",
            "warning",
            "routingStrategy",
        ),
        (
            {"kvCache": {"l2CacheBackend": "redis"}},
            "redis-needs-url",
            "error",
            "kvCache.l2CacheLocalUrl",
        ),
        ({"topologySpec": {"sameAZ": False}}, "dpd-across-azs", "error", "topologySpec.sameAZ"),
        (
            {"metrics": {"modelMetrics": {"port": 8080}}},
            "metrics-port",
            "error",
            "metrics.modelMetrics.port",
        ),
        # 30 + 7 (the generation's -g<digest>) + 1 + 10 + 16: over 63.
        ({"name": "a" * 30, "namespace": "b" * 10}, "router-service-name", "error", "name"),
        ({"endpointName": "e" * 57}, "endpoint-name-length", "error", "endpointName"),
        ({"name": "70b-llama"}, "router-service-name", "error", "name"),
        ({"image": "vllm/vllm-openai:latest"}, "unknown-image", "warning", "image"),
        (
            {"specOverrides": {"pdSpec": {"routingThreshold": 1}}},
            "override-of-typed-field",
            "error",
            "specOverrides.pdSpec.routingThreshold",
        ),
    ],
)
def test_each_rule_reports_its_setting(changes, code, level, field):
    assert (level, field) in codes(**changes)[code]


@pytest.mark.parametrize(
    "changes, code",
    [
        ({"prefill": {"gpus": 8}, "decode": {"gpus": 8}}, "gpus-below-tp"),
        ({"tensorParallelSize": 8}, "gpus-idle"),
        ({"workerArgs": ["--enable-prefix-caching"]}, "typed-flag-in-args"),
        (
            {"environmentVariables": {"PYTHONHASHSEED": "0", "LMCACHE_SAVE_DECODE_CACHE": "False"}},
            "pinned-env",
        ),
        (
            {"routingStrategy": "kvaware", "invocationEndpoint": "v1/chat/completions"},
            "kvaware-needs-completions",
        ),
        (
            {"prefill": {"replicas": 2}, "routingStrategy": "roundrobin"},
            "prefixaware-many-prefills",
        ),
        ({"kvCache": {"l2CacheBackend": "tieredstorage"}}, "redis-needs-url"),
        ({"topologySpec": {"sameAZ": True}}, "dpd-across-azs"),
        ({"metrics": {"modelMetrics": {"port": 8000, "path": "/metrics"}}}, "metrics-port"),
        ({"image": "lmcache/vllm-openai:v0.4.3"}, "unknown-image"),
        (
            {"specOverrides": {"loadBalancer": {"routingAlgorithm": "least_outstanding_requests"}}},
            "override-of-typed-field",
        ),
    ],
)
def test_each_rule_stays_quiet_when_the_settings_are_right(changes, code):
    assert code not in codes(**changes)


def test_the_routing_advice_says_following_it_brings_a_new_generation():
    scaled = {"prefill": {"replicas": 1, "autoscaling": {"minReplicas": 1, "maxReplicas": 3}}}
    (advice,) = [f for f in check_endpoint(spec(**scaled)) if f.field == "routingStrategy"]
    assert advice.message.startswith(
        "prefixaware with up to 3 prefill replicas (prefill.autoscaling.maxReplicas)"
    )
    assert "changing routingStrategy brings a new generation" in advice.message


def test_a_role_flag_owned_by_settings_names_the_role_setting():
    (finding,) = check_endpoint(spec(prefill={"args": ["--gpu-memory-utilization", "0.5"]}))
    assert "prefill.gpuMemoryUtilization" in finding.message


def test_fixed_flags_cannot_be_moved():
    (finding,) = check_endpoint(spec(workerArgs=["--port", "9000"]))
    assert finding.message.startswith("--port is fixed")


def test_names_are_unique_within_a_namespace_only():
    same = [spec(), spec(), spec(namespace="other")]
    found = check_endpoints(same)
    assert [(i, f.code, f.field) for i, f in found] == [(1, "duplicate-name", "name")]
    assert "endpoints[0]" in found[0][1].message
