import pytest

from components.endpoint.manifest import build_manifest
from components.endpoint.placement import check_placement
from components.endpoint.schema import schema_errors
from components.endpoint.spec import EndpointSpec
from tests.components.endpoint.items import endpoint_problem

AFFINITY = {
    "requiredDuringSchedulingIgnoredDuringExecution": {
        "nodeSelectorTerms": [
            {
                "matchExpressions": [
                    {
                        "key": "node.kubernetes.io/instance-type",
                        "operator": "In",
                        "values": ["ml.p5en.48xlarge"],
                    }
                ]
            }
        ]
    }
}
AGGREGATED = {
    "name": "chat",
    "modelName": "Llama-3.1-8B-Instruct",
    "modelSource": {"s3": {"prefix": "llama"}},
    "instanceType": "ml.p5en.48xlarge",
    "maxModelLen": 8192,
    "serving": {"gpus": 1},
    "tensorParallelSize": 1,
}


@pytest.mark.parametrize(
    "key, value",
    [("instanceTypes", ["ml.p5en.48xlarge", "ml.p5.48xlarge"]), ("nodeAffinity", AFFINITY)],
)
def test_placement_is_written_in_place_of_the_instance_type(key, value):
    endpoint = EndpointSpec.model_validate({**AGGREGATED, key: value})
    manifest = build_manifest(endpoint, model_bucket="b", region="us-east-2")
    assert manifest["spec"][key] == value and "instanceType" not in manifest["spec"]
    assert schema_errors(manifest, "3.2") == []


def test_dpd_keeps_its_one_instance_type():
    says = endpoint_problem({"instanceTypes": ["ml.p5.48xlarge"]}, "instanceTypes")
    assert "DPD runs on one instanceType" in says


@pytest.mark.parametrize(
    "instance_types, affinity, field",
    [
        (["ml.p5en.48xlarge"], None, "instanceTypes"),
        (["ml.p5.48xlarge", "ml.x1.48xlarge"], None, "instanceTypes[1]"),
        (None, AFFINITY, "nodeAffinity"),
        (["ml.p5.48xlarge"], {}, "nodeAffinity"),
    ],
)
def test_placement_that_leaves_out_what_the_stack_sizes_is_refused(instance_types, affinity, field):
    (finding,) = check_placement("ml.p5.48xlarge", instance_types, affinity, dpd=False)
    assert (finding.level, finding.field) == ("error", field)


def test_an_affinity_naming_the_instance_type_passes():
    assert check_placement("ml.p5en.48xlarge", None, AFFINITY, dpd=False) == []


def test_a_command_running_vllm_with_a_flag_a_setting_writes_is_refused():
    says = endpoint_problem({"command": ["vllm", "serve", "/opt/ml/model", "-tp", "2"]}, "command")
    assert "tensorParallelSize" in says
