"""An InferenceEndpointConfig read back into the endpoint item whose settings write it."""

import copy

import yaml

from components.endpoint.spec import EndpointSpec
from components.endpoint.worker import WorkerResources, check_worker_fits_node
from tests.tools.import_endpoint.test_import_command import DPD
from tools.import_endpoint.manifests import Manifest
from tools.import_endpoint.reverse import read_item
from tools.import_endpoint.reverse_worker import engine_of

LIVE = yaml.safe_load(DPD)


def reading(change=lambda spec: None):
    body = copy.deepcopy(LIVE)
    change(body["spec"])
    return read_item(Manifest("live.yaml", body))


def test_the_command_line_and_variables_come_as_they_are_and_the_settings_read_them():
    found = reading()
    assert found.problems == []
    assert found.sources["modelSource.s3.bucket"] == "spec.modelSourceConfig.s3Storage.bucketName"
    assert found.sources["maxModelLen"] == "spec.worker.args"
    assert found.item["prefill"] == {"replicas": 1, "gpus": 8}
    assert found.item["workerArgs"] == LIVE["spec"]["worker"]["args"]
    assert list(found.item["environmentVariables"]) == [
        "HF_HOME",
        "PD_BUFFER_SIZE",
        "LMCACHE_SAVE_DECODE_CACHE",
        "PYTHONHASHSEED",
    ]
    assert "maxModelLen" not in found.item
    spec = EndpointSpec.model_validate(found.item)
    assert (spec.max_model_len, spec.tensor_parallel_size, spec.pd_buffer_size) == (
        16384,
        8,
        8 * 2**30,
    )


def test_a_field_no_setting_owns_becomes_an_override():
    found = reading(lambda spec: spec.update(dnsConfig={"hostedZoneId": "Z0123456789ABC"}))
    assert found.item["specOverrides"] == {"dnsConfig": {"hostedZoneId": "Z0123456789ABC"}}
    assert found.sources["specOverrides.dnsConfig.hostedZoneId"] == "spec.dnsConfig.hostedZoneId"


def test_the_pod_customizations_become_their_setting():
    found = reading(lambda spec: spec.update(kubernetes={"serviceAccountName": "inference"}))
    assert found.item["kubernetes"] == {"serviceAccountName": "inference"}
    assert "specOverrides" not in found.item


def test_a_value_an_owning_setting_cannot_write_names_the_field_keys_with_dots_and_all():
    def limits_only(spec):
        spec["pdSpec"]["prefillSpec"]["resources"] = {"limits": {"nvidia.com/gpu": "8"}}

    assert reading(limits_only).problems == [
        (
            "spec.pdSpec.prefillSpec.resources.limits.nvidia.com/gpu",
            "is written by the setting prefill, which cannot write this value",
        )
    ]


def test_the_engine_is_told_by_the_image_and_its_settings_read_from_its_variables():
    assert (
        engine_of(
            "763104351884.dkr.ecr.us-east-2.amazonaws.com/huggingface-pytorch-tgi-inference:2.4.0"
        )
        == "tgi"
    )
    assert (
        engine_of("763104351884.dkr.ecr.us-west-2.amazonaws.com/djl-inference:0.32.0-lmi14.0.0")
        == "lmi"
    )
    assert engine_of("lmsysorg/sglang:v0.4.6") == "sglang"
    assert engine_of("vllm/vllm-openai:v0.8.4") == "vllm"

    def tgi(spec):
        spec["worker"]["image"] = "huggingface-pytorch-tgi-inference:2.4.0"
        spec["worker"]["environmentVariables"] = [
            {"name": "HF_MODEL_ID", "value": "/opt/ml/model"},
            {"name": "SM_NUM_GPUS", "value": "8"},
            {"name": "MAX_TOTAL_TOKENS", "value": "8192"},
            {"name": "TEAM", "value": "a"},
        ]

    item = reading(tgi).item
    assert item["engine"] == "tgi"
    assert item["environmentVariables"]["SM_NUM_GPUS"] == "8"
    colocated = {k: v for k, v in item.items() if k not in ("prefill", "decode", "pdBufferSize")}
    spec = EndpointSpec.model_validate({**colocated, "serving": {"gpus": 8}})
    assert (spec.tensor_parallel_size, spec.max_model_len) == (8, 8192)


COLOCATED_ON_A_HOST = {
    "apiVersion": "inference.sagemaker.aws.amazon.com/v1",
    "kind": "InferenceEndpointConfig",
    "metadata": {"name": "pinned"},
    "spec": {
        "modelName": "Qwen2.5-VL-7B-Instruct",
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "kubernetes.io/hostname", "operator": "In", "values": ["n1"]}
                        ]
                    }
                ]
            }
        },
        "intelligentRoutingSpec": {"enabled": False, "routingStrategy": "prefixaware"},
        "modelSourceConfig": {"modelSourceType": "s3", "s3Storage": {"bucketName": "w"}},
        "worker": {
            "image": "vllm/vllm-openai:latest",
            "resources": {"limits": {"nvidia.com/gpu": 1}},
            "modelInvocationPort": {"containerPort": 8000},
            "modelVolumeMount": {"name": "weights", "mountPath": "/opt/ml/model"},
        },
    },
}


def test_pods_placed_by_host_alone_are_sized_for_a_type_the_import_names_as_chosen():
    found = read_item(Manifest("pinned.yaml", COLOCATED_ON_A_HOST))
    assert found.problems == []
    assert found.item["nodeAffinity"] == COLOCATED_ON_A_HOST["spec"]["nodeAffinity"]
    assert found.item["routingEnabled"] is False
    assert found.item["routingStrategy"] == "prefixaware"
    (chosen,) = found.chosen
    assert chosen.startswith(f"instanceType {found.item['instanceType']}, the smallest type")
    assert "maxModelLen" not in found.item


def test_pods_placed_by_nothing_get_an_empty_affinity_rather_than_a_type_that_pins_them():
    free = copy.deepcopy(COLOCATED_ON_A_HOST)
    del free["spec"]["nodeAffinity"]
    found = read_item(Manifest("free.yaml", free))
    assert found.item["nodeAffinity"] == {}
    assert found.item["instanceType"] in found.chosen[0]


def test_pods_placed_by_a_preference_list_are_sized_for_its_first_type():
    listed = copy.deepcopy(COLOCATED_ON_A_HOST)
    del listed["spec"]["nodeAffinity"]
    listed["spec"]["instanceTypes"] = ["ml.g6e.2xlarge", "ml.g5.2xlarge"]
    listed["spec"]["modelSourceConfig"]["s3Storage"]["bucketName"] = "weights"
    found = read_item(Manifest("listed.yaml", listed))
    assert "instanceType" not in found.item and found.chosen == []
    assert EndpointSpec.model_validate(found.item).instance_type == "ml.g6e.2xlarge"


def test_a_variable_from_a_secret_comes_back_as_environment_from():
    def from_secret(spec):
        spec["worker"]["environmentVariables"].append(
            {"name": "HF_TOKEN", "valueFrom": {"secretKeyRef": {"name": "hf", "key": "token"}}}
        )

    found = reading(from_secret)
    assert found.problems == []
    assert found.item["environmentFrom"] == {
        "HF_TOKEN": {"secretKeyRef": {"name": "hf", "key": "token"}}
    }


def test_the_chosen_type_is_the_smallest_whose_node_holds_the_pods_requests():
    placed = copy.deepcopy(COLOCATED_ON_A_HOST)
    placed["spec"]["worker"]["resources"]["requests"] = {"cpu": "6", "memory": "30Gi"}
    found = read_item(Manifest("pinned.yaml", placed))
    resources = WorkerResources.model_validate(found.item["workerResources"])
    assert check_worker_fits_node(resources, found.item["instanceType"], 1) == []
    assert check_worker_fits_node(resources, "ml.g5.xlarge", 1) != []
