import pytest

from components.endpoint.checks import check_endpoint
from components.endpoint.engines.tgi import TGI
from components.endpoint.manifest import build_manifest
from components.endpoint.schema import schema_errors
from components.endpoint.spec import EndpointSpec
from components.endpoint.vllm_args import check_args
from tests.components.endpoint.items import endpoint_problem

WORKSPACE = "https://aps-workspaces.us-east-2.amazonaws.com/workspaces/ws-1"
BASE = {
    "name": "chat",
    "modelName": "Llama-3.1-8B-Instruct",
    "modelSource": {"s3": {"prefix": "llama"}},
    "instanceType": "ml.p5.48xlarge",
    "maxModelLen": 4096,
    "tensorParallelSize": 2,
}


def spec(**changes) -> EndpointSpec:
    return EndpointSpec.model_validate({**BASE, **changes})


def worker(**changes) -> dict:
    built = build_manifest(spec(**changes), model_bucket="weights", region="us-east-2")
    assert schema_errors(built, "3.2") == [] and schema_errors(built, "3.3") == []
    return built["spec"]["worker"]


def env(section: dict) -> dict[str, str]:
    return {e["name"]: e["value"] for e in section["environmentVariables"]}


def test_tgi_reads_the_settings_from_its_sagemaker_variables_and_serves_on_8080():
    section = worker(engine="tgi", image=TGI.image, environmentVariables={"MAX_INPUT_LENGTH": 4095})
    assert "args" not in section
    assert section["modelInvocationPort"] == {"name": "http", "containerPort": 8080}
    assert (
        env(section).items()
        >= {
            "MAX_INPUT_LENGTH": "4095",
            "SM_NUM_GPUS": "2",
            "MAX_TOTAL_TOKENS": "4096",
            "HF_MODEL_ID": "/opt/ml/model",
        }.items()
    )
    assert "CUDA_MEMORY_FRACTION" not in env(section)


@pytest.mark.parametrize(
    "engine, expected",
    [
        (
            "lmi",
            {
                "OPTION_TENSOR_PARALLEL_DEGREE": "2",
                "OPTION_MAX_MODEL_LEN": "4096",
                "OPTION_GPU_MEMORY_UTILIZATION": "0.9",
            },
        ),
        (
            "sglang",
            {
                "SM_SGLANG_TP_SIZE": "2",
                "SM_SGLANG_CONTEXT_LENGTH": "4096",
                "SM_SGLANG_MEM_FRACTION_STATIC": "0.9",
            },
        ),
    ],
)
def test_each_engine_gets_the_settings_in_its_own_variables(engine, expected):
    section = worker(engine=engine, image="registry.example/engine:1", gpuMemoryUtilization=0.9)
    assert env(section).items() >= expected.items()
    assert "--tensor-parallel-size" not in section.get("args", [])


@pytest.mark.parametrize(
    "engine, variables, tensor_parallel",
    [("tgi", {}, 8), ("tgi", {"SM_NUM_GPUS": "4"}, 4), ("sglang", {}, 1)],
)
def test_an_adopted_endpoint_runs_the_tensor_parallel_its_variables_or_its_engine_say(
    engine, variables, tensor_parallel
):
    # TGI runs every GPU of the pod unset, SGLang one.
    item = {k: v for k, v in BASE.items() if k != "tensorParallelSize"}
    adopted = EndpointSpec.model_validate(
        item
        | {"engine": engine, "image": "registry.example/e:1", "adopted": True}
        | {"serving": {"gpus": 8}, "environmentVariables": variables}
    )
    assert adopted.tensor_parallel_size == tensor_parallel
    assert "typed-variable-in-environment" not in by_code(adopted)


def test_worker_args_pass_to_another_engine_as_written_without_vllm_rules():
    endpoint = spec(
        engine="sglang", image="registry.example/sglang:1", workerArgs=["--tp-size", "2"]
    )
    assert check_args(endpoint) == []
    assert worker(engine="sglang", image="registry.example/sglang:1", workerArgs=["--x"])[
        "args"
    ] == ["--x"]


def test_a_credential_in_another_engines_args_is_still_refused():
    token = "hf_" + "abcdefghijklmnopq" * 2
    endpoint = spec(
        engine="sglang", image="registry.example/sglang:1", workerArgs=["--hf-token", token]
    )
    (finding,) = check_args(endpoint)
    assert finding.field == "workerArgs[0]"


def by_code(endpoint: EndpointSpec) -> dict[str, str]:
    return {f.code: f.field for f in check_endpoint(endpoint) if f.level == "error"}


def test_a_variable_a_setting_writes_for_the_engine_is_refused_naming_it():
    endpoint = spec(engine="tgi", image=TGI.image, environmentVariables={"SM_NUM_GPUS": "8"})
    assert by_code(endpoint)["typed-variable-in-environment"] == "environmentVariables.SM_NUM_GPUS"


def test_another_engine_on_the_default_vllm_image_is_refused_naming_the_image():
    assert by_code(spec(engine="lmi"))["engine-without-image"] == "image"


def test_autoscaling_on_vllms_series_under_another_engine_is_refused():
    endpoint = spec(
        engine="tgi",
        image=TGI.image,
        decode={"autoscaling": {"maxReplicas": 2, "serverAddress": WORKSPACE}},
    )
    assert by_code(endpoint)["vllm-metric-under-another-engine"] == "decode.autoscaling.metric"


def test_dpd_with_another_engine_is_refused_naming_the_engine():
    says = endpoint_problem({"engine": "tgi", "image": TGI.image}, "engine")
    assert "LMCache inside vLLM" in says


@pytest.mark.parametrize(
    "changes, key",
    [
        ({"routingStrategy": "prefixaware"}, "routingStrategy"),
        ({"routingEnabled": True}, "routingEnabled"),
        ({"kvCache": {"enableL1Cache": True}}, "kvCache"),
    ],
)
def test_routing_and_the_kv_cache_are_refused_on_another_engine_quoting_aws(changes, key):
    endpoint = spec(engine="tgi", image=TGI.image, serving={"gpus": 2}, **changes)
    (finding,) = [f for f in check_endpoint(endpoint) if f.code == "vllm-only-feature"]
    assert finding.field == key
    assert "currently support only vLLM-based inference containers" in finding.message
    assert not [
        f
        for f in check_endpoint(spec(serving={"gpus": 2}, **changes))
        if f.code == "vllm-only-feature"
    ]
