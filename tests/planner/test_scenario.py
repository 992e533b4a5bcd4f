"""The scenario file's keys: what is taken, and the one-line refusals."""

import json
import os
import re

import pytest
from pydantic import ValidationError

from components.model.catalog import MODEL_CATALOG
from planner.scenario import (
    Scenario,
    ScenarioError,
    precision_of,
    resolve_model,
    weight_bytes_per_parameter,
)

BASE = {
    "model": {"name": "llama-3.3-70b"},
    "instanceType": "ml.p5.48xlarge",
    "workload": {"typicalInputTokens": 1000, "outputTokens": 100},
}


def scenario(**changes):
    return Scenario.model_validate({**BASE, **changes})


@pytest.mark.parametrize(
    "written, taken",
    [
        ("FP8", "fp8"),
        ("bfloat16", "bf16"),
        ("nvfp4", "fp4"),
        ("mxfp4", "fp4"),
        ("fp16", "bf16"),
        # Integer formats keep their own kernels: INT8 GEMMs, and 4-bit weights with 16-bit
        # activations (AWQ, GPTQ).
        ("int4", "w4a16"),
        ("AWQ", "w4a16"),
        ("gptq", "w4a16"),
        ("w8a8", "int8"),
        ("int8", "int8"),
    ],
)
def test_precisions_are_taken_under_their_common_names(written, taken):
    assert scenario(precision=written).precision == taken


def test_the_memory_share_defaults_to_the_engines_09_and_an_endpoints_075_when_planning():
    # A prediction describes a run, at the engines' own default; a recommendation plans an
    # endpoint, at the endpoints' (components/endpoint/spec.py).
    assert scenario().utilization() == 0.9
    assert scenario().utilization(0.75) == 0.75
    assert scenario(gpuMemoryUtilization=0.8).utilization(0.75) == 0.8


@pytest.mark.parametrize(
    "written, drafts",
    [("mtp3", 3), ("eagle-4", 4), ("MTP1", 1), (2, 2), ("7", 7), ("off", 0), (False, 0), (None, 0)],
)
def test_speculative_decoding_names_its_drafted_tokens_or_is_off(written, drafts):
    assert scenario(speculativeDecoding=written).speculative_decoding == drafts


@pytest.mark.parametrize(
    "written",
    ["banana", "mtp²", "9" * 5000, 10**5000, 16, True, "mtp-3.5"],
    ids=["banana", "superscript", "5000-digit-text", "5000-digit-number", "16", "true", "3.5"],
)
def test_speculative_decoding_that_names_no_drafts_is_refused_in_words(written):
    with pytest.raises(ValidationError, match=r"not a number of drafted tokens|true says none"):
        scenario(speculativeDecoding=written)


@pytest.mark.parametrize("written", ["TensorRT-LLM", "trtllm", "tensorrt_llm"])
def test_tensorrt_llm_goes_by_any_of_its_names(written):
    assert scenario(engine=written).engine == "trtllm"


@pytest.mark.parametrize(
    "written, taken",
    [
        ("p5en.48xlarge", "ml.p5en.48xlarge"),
        ("H100", "ml.p5.48xlarge"),
        ("h200", "ml.p5en.48xlarge"),
        ("B300", "ml.p6-b300.48xlarge"),
    ],
)
def test_an_instance_type_may_be_written_without_its_prefix_or_by_its_gpu(written, taken):
    assert scenario(instanceType=written).instance_type == taken


def test_expert_parallel_true_spreads_experts_over_the_replica():
    # 0 stands for "every GPU of the replica", which the prediction resolves.
    assert (
        scenario(serving={"tensorParallel": 8, "expertParallel": True}).serving.expert_parallel == 0
    )


def test_a_measurement_recorded_beside_the_scenario_is_ignored():
    recorded = scenario(id="run-1", measured={"ttftMs": 100}, source={"url": "x"}, gpu="H100")
    assert recorded == scenario()


@pytest.mark.parametrize(
    "changes, key",
    [
        ({"instanceType": "ml.g4dn.xlarge"}, "instanceType"),
        # DPD runs on five types only; the others serve aggregated.
        ({"instanceType": "ml.g6e.12xlarge", "prefill": {}, "decode": {}}, "does not run DPD"),
        ({"engine": "llama.cpp"}, "engine"),
        ({"precision": "int3"}, "precision"),
        (
            {"serving": {"tensorParallel": 8}, "prefill": {"tensorParallel": 8}},
            "set serving",
        ),
        ({"model": {"name": "x", "configFile": "config.json"}}, "set name"),
        ({"serving": {"tensorParallel": 0}}, "tensorParallel"),
        ({"workload": {"typicalInputTokens": 1000, "outputTokens": 10, "colour": 1}}, "colour"),
    ],
)
def test_bad_keys_are_refused(changes, key):
    with pytest.raises(ValidationError, match=key):
        scenario(**changes)


def test_a_catalog_name_may_be_the_published_model_name():
    named = scenario(model={"name": "meta-llama/Llama-3.3-70B-Instruct"})
    assert resolve_model(named) == MODEL_CATALOG["llama-3.3-70b"]


def test_an_unknown_model_name_names_the_key_and_the_catalog():
    with pytest.raises(ScenarioError, match=r"^scenario\.model\.name: 'my-model' is no catalog"):
        resolve_model(scenario(model={"name": "my-model"}))


def test_a_config_file_is_read_beside_the_scenario_and_counts_its_parameters(tmp_path):
    config = {
        "hidden_size": 4096,
        "intermediate_size": 14_336,
        "num_attention_heads": 32,
        "num_hidden_layers": 32,
        "num_key_value_heads": 8,
        "vocab_size": 128_256,
        "torch_dtype": "bfloat16",
        "quantization_config": {"quant_method": "compressed-tensors", "format": "float-quantized"},
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    model = resolve_model(scenario(model={"configFile": "config.json"}), base_dir=tmp_path)
    assert model.parameters == pytest.approx(8.03e9, rel=0.005)
    # A checkpoint stored in FP8 still keeps its KV cache in BF16 (vLLM's `auto`).
    (tmp_path / "config.json").write_text(json.dumps({**config, "torch_dtype": "float8_e4m3fn"}))
    fp8 = resolve_model(scenario(model={"configFile": "config.json"}), base_dir=tmp_path)
    assert fp8.dtype == "bf16"
    # Any quantization is taken, not refused: the scenario's precision decides the bytes.
    assert model.layers == 32


def test_a_missing_config_file_names_the_key(tmp_path):
    with pytest.raises(
        ScenarioError, match=r"^scenario\.model\.configFile: nope\.json: no such file"
    ):
        resolve_model(scenario(model={"configFile": "nope.json"}), base_dir=tmp_path)


@pytest.mark.parametrize(
    "special, says",
    [("/dev/zero", "is a character device, not a file"), ("fifo", "is a named pipe (FIFO)")],
)
def test_a_config_file_that_is_no_file_is_refused_at_once(tmp_path, special, says):
    # Read as the stack reads config.json: /dev/zero would fill memory, a FIFO never ends.
    if special == "fifo":
        os.mkfifo(tmp_path / "fifo")
    with pytest.raises(ScenarioError, match=rf"^scenario\.model\.configFile: .*{re.escape(says)}"):
        resolve_model(scenario(model={"configFile": special}), base_dir=tmp_path)


def test_a_config_file_past_the_size_cap_is_refused(tmp_path):
    (tmp_path / "big.json").write_bytes(b" " * (4 * 2**20 + 1))
    with pytest.raises(ScenarioError, match="is larger than 4 MiB"):
        resolve_model(scenario(model={"configFile": "big.json"}), base_dir=tmp_path)


@pytest.mark.parametrize(
    "catalog_id, precision",
    [
        ("llama-3.3-70b", "bf16"),
        ("deepseek-v3", "fp8"),
        ("minimax-m2", "fp8"),
        ("gpt-oss-120b", "fp4"),
    ],
)
def test_without_a_precision_the_checkpoint_decides(catalog_id, precision):
    model = MODEL_CATALOG[catalog_id]
    assert precision_of(scenario(model={"name": catalog_id}), model) == precision


def test_gpt_oss_keeps_its_mxfp4_experts_whatever_its_gemms_run_in():
    assert weight_bytes_per_parameter("bf16", MODEL_CATALOG["gpt-oss-120b"]) == 4.25 / 8
    assert weight_bytes_per_parameter("fp8", MODEL_CATALOG["llama-3.3-70b"]) == 1.0
