"""An endpoint's mode: DPD with prefill and decode, or aggregated with serving; the keys one
mode has are refused in the other, naming them."""

import pytest

from components.endpoint.checks import check_endpoint
from components.endpoint.serving_mode import check_serving_mode
from components.endpoint.spec import EndpointSpec
from tests.components.endpoint.test_manifest import MINIMAL
from tests.stack_changes import refusal
from tests.support import aggregated_endpoint, render, with_endpoints

SERVING = {"replicas": 2, "gpus": 8}


def spec(**changes):
    return EndpointSpec.model_validate({**MINIMAL, **changes})


def codes(endpoint):
    return [(f.code, f.field) for f in check_serving_mode(endpoint)]


def test_an_aggregated_endpoint_passes_its_own_rules():
    assert [f for f in check_endpoint(spec(serving=SERVING)) if f.level == "error"] == []


@pytest.mark.parametrize(
    "key, value",
    [
        ("prefill", {"replicas": 2}),
        ("decode", {"gpus": 4}),
        ("routingThreshold", 2048),
        ("pdBufferSize", "16GiB"),
        ("topologySpec", {"sameAZ": True}),
    ],
)
def test_a_dpd_key_on_an_aggregated_endpoint_is_refused_naming_it(key, value):
    assert codes(spec(serving=SERVING, **{key: value})) == [("dpd-key-on-aggregated", key)]


def test_a_serving_node_selector_is_refused_as_the_crd_has_no_place_for_it():
    serving = {**SERVING, "nodeSelector": {"tier": "a"}}
    assert codes(spec(serving=serving)) == [("node-selector-on-aggregated", "serving.nodeSelector")]


def test_dpd_stays_on_its_five_instance_types_and_aggregated_takes_the_others():
    on_g6e = {"instanceType": "ml.g6e.12xlarge", "tensorParallelSize": 4}
    assert codes(spec(**on_g6e)) == [("dpd-instance-type", "instanceType")]
    assert codes(spec(**on_g6e, serving={"gpus": 4})) == []


def test_an_instance_type_without_gpus_the_stack_knows_is_refused_by_the_spec():
    with pytest.raises(ValueError, match="must be a GPU instance type"):
        spec(instanceType="ml.c5.4xlarge", serving=SERVING)


# Through the whole program, naming the full key.


def test_serving_beside_prefill_is_refused_naming_the_dpd_key():
    problem = refusal({"endpoints[0].serving": SERVING}, "endpoints[0].prefill")
    assert "is a DPD setting, and this endpoint serves aggregated" in problem


def test_dpd_on_a_type_that_runs_only_aggregated_is_refused_naming_instance_type():
    changes = {"endpoints[0].instanceType": "ml.g5.48xlarge"}
    assert "does not run DPD" in refusal(changes, "endpoints[0].instanceType")


def test_an_aggregated_endpoint_renders_in_the_dev_stack_with_no_pdspec():
    result = render(with_endpoints(aggregated_endpoint()))
    (config,) = [r for r in result.resources if r.type.endswith(":InferenceEndpointConfig")]
    body = config.inputs["spec"]
    assert "pdSpec" not in body and "intelligentRoutingSpec" not in body
    assert body["replicas"] == 2
    names = {v["name"] for v in body["worker"]["environmentVariables"]}
    assert names.isdisjoint({"PD_BUFFER_SIZE", "LMCACHE_SAVE_DECODE_CACHE", "PYTHONHASHSEED"})


def test_a_colocated_endpoint_of_a_model_the_stack_cannot_size_renders_with_a_warning():
    unsized = aggregated_endpoint(modelName="my-finetune")
    del unsized["maxModelLen"]
    result = render(with_endpoints(unsized))
    (config,) = [r for r in result.resources if r.type.endswith(":InferenceEndpointConfig")]
    assert "--max-model-len" not in config.inputs["spec"]["worker"]["args"]
    (warned,) = [w for w in result.warnings if ".architecture:" in w]
    assert warned.startswith("hyperpod-dpd:endpoints[0].architecture: is not set")
