from typing import Any

from components.endpoint.checks import check_endpoint, check_endpoints
from components.endpoint.spec import EndpointSpec
from tests.components.endpoint.test_manifest import MINIMAL


def spec(**changes: Any) -> EndpointSpec:
    return EndpointSpec.model_validate({**MINIMAL, **changes})


def test_the_documented_shape_has_nothing_to_report():
    assert check_endpoint(spec()) == []


def test_every_concepts_rules_run_and_report_together():
    # One problem for each module's rules, an override among them: all reported at once.
    broken = spec(
        prefill={"gpus": 9, "autoscaling": {"minReplicas": 3, "maxReplicas": 2}},
        workerArgs=["--port", "9000"],
        environmentVariables={"PYTHONHASHSEED": "1"},
        routingStrategy="kvaware",
        kvCache={"l2CacheBackend": "redis"},
        topologySpec={"sameAZ": False},
        metrics={"modelMetrics": {"port": 8080}},
        name="70b-llama",
        image="vllm/vllm-openai:latest",
        specOverrides={"replicas": 3},
    )
    assert {f.code for f in check_endpoint(broken)} == {
        "autoscaling-range",
        "gpus-exceed-node",
        "typed-flag-in-args",
        "pinned-env",
        "kvaware-needs-completions",
        "redis-needs-url",
        "dpd-across-azs",
        "metrics-port",
        "derived-name",
        "unknown-image",
        "override-of-typed-field",
    }


def test_names_are_unique_within_a_namespace_only():
    same = [spec(), spec(), spec(namespace="other")]
    found = check_endpoints(same)
    assert [(i, f.code, f.field) for i, f in found] == [(1, "duplicate-name", "name")]
    assert "endpoints[0]" in found[0][1].message
