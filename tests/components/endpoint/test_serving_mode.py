"""An endpoint's mode: DPD with prefill and decode, or aggregated with serving; the keys one
mode has are refused in the other, naming them."""

import pytest

from components.endpoint.checks import check_endpoint
from components.endpoint.manifest import build_manifest
from components.endpoint.serving_mode import check_serving_mode
from components.endpoint.spec import EndpointSpec
from tests.components.endpoint.items import endpoint_problem, endpoint_problems
from tests.components.endpoint.test_manifest import MINIMAL
from tests.support import aggregated_endpoint

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


def test_serving_beside_prefill_is_refused_naming_the_dpd_key():
    problem = endpoint_problem({"serving": SERVING}, "prefill")
    assert "is a DPD setting, and this endpoint serves aggregated" in problem


def test_dpd_on_a_type_that_runs_only_aggregated_is_refused_naming_instance_type():
    changes = {"instanceType": "ml.g5.48xlarge"}
    assert "does not run DPD" in endpoint_problem(changes, "instanceType")


def test_the_dev_endpoint_served_aggregated_passes_and_writes_no_pdspec():
    item = aggregated_endpoint()
    assert endpoint_problems(item) == []
    body = build_manifest(EndpointSpec.model_validate(item), model_bucket="b", region="us-west-2")
    assert "pdSpec" not in body["spec"] and "intelligentRoutingSpec" not in body["spec"]
    assert body["spec"]["replicas"] == 2
    names = {v["name"] for v in body["spec"]["worker"]["environmentVariables"]}
    assert names.isdisjoint({"PD_BUFFER_SIZE", "LMCACHE_SAVE_DECODE_CACHE", "PYTHONHASHSEED"})


def test_a_colocated_endpoint_of_a_model_the_stack_cannot_size_passes_without_max_model_len():
    unsized = aggregated_endpoint(modelName="my-finetune")
    del unsized["maxModelLen"]
    assert endpoint_problems(unsized) == []
    body = build_manifest(
        EndpointSpec.model_validate(unsized), model_bucket="b", region="us-west-2"
    )
    assert "--max-model-len" not in body["spec"]["worker"]["args"]
