import json
import os
from pathlib import Path
from typing import Any

import pytest

from components.model.catalog import MODEL_CATALOG
from components.model.hf_config import (
    MAX_CONFIG_BYTES,
    HuggingFaceConfigFile,
    architecture_from_hf_config,
    read_hf_config,
)

# The keys that matter, as the models' config.json files have them.
LLAMA_3_3_70B = {
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 8192,
    "intermediate_size": 28672,
    "num_attention_heads": 64,
    "num_hidden_layers": 80,
    "num_key_value_heads": 8,
    "torch_dtype": "bfloat16",
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "rope_scaling": {
        "factor": 8.0,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
        "rope_type": "llama3",
    },
}
QWEN2_5_72B = {
    "hidden_size": 8192,
    "intermediate_size": 29568,
    "num_attention_heads": 64,
    "num_hidden_layers": 80,
    "num_key_value_heads": 8,
    "sliding_window": 131072,
    "use_sliding_window": False,
    "torch_dtype": "bfloat16",
    "vocab_size": 152064,
    "max_position_embeddings": 32768,
    "rope_scaling": None,
}
MIXTRAL_8X7B = {
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "num_experts_per_tok": 2,
    "num_local_experts": 8,
    "sliding_window": None,
    "torch_dtype": "bfloat16",
    "vocab_size": 32000,
    "max_position_embeddings": 32768,
}
DEEPSEEK_V3 = {
    "first_k_dense_replace": 3,
    "hidden_size": 7168,
    "intermediate_size": 18432,
    "num_attention_heads": 128,
    "num_hidden_layers": 61,
    "num_key_value_heads": 128,
    "kv_lora_rank": 512,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "q_lora_rank": 1536,
    "v_head_dim": 128,
    "moe_intermediate_size": 2048,
    "n_routed_experts": 256,
    "n_shared_experts": 1,
    "num_experts_per_tok": 8,
    "quantization_config": {"quant_method": "fp8", "fmt": "e4m3"},
    "torch_dtype": "bfloat16",
    "vocab_size": 129280,
    "max_position_embeddings": 163840,
    "rope_scaling": {
        "beta_fast": 32,
        "beta_slow": 1,
        "factor": 40,
        "mscale": 1.0,
        "mscale_all_dim": 1.0,
        "original_max_position_embeddings": 4096,
        "type": "yarn",
    },
}
GPT_OSS_120B = {
    "experts_per_token": 4,
    "head_dim": 64,
    "hidden_size": 2880,
    "intermediate_size": 2880,
    "layer_types": ["sliding_attention", "full_attention"] * 18,
    "num_attention_heads": 64,
    "num_hidden_layers": 36,
    "num_key_value_heads": 8,
    "num_local_experts": 128,
    "quantization_config": {"quant_method": "mxfp4"},
    "sliding_window": 128,
    "vocab_size": 201088,
    "max_position_embeddings": 131072,
    "rope_scaling": {
        "beta_fast": 32.0,
        "beta_slow": 1.0,
        "factor": 32.0,
        "original_max_position_embeddings": 4096,
        "rope_type": "yarn",
        "truncate": False,
    },
}


def parsed(config: dict[str, Any], **setting: Any):
    return architecture_from_hf_config(
        config, name=setting.pop("name", "config.json"), **{"parameters": 1e9, **setting}
    )


@pytest.mark.parametrize(
    "config, catalog_id",
    [
        (LLAMA_3_3_70B, "llama-3.3-70b"),
        (QWEN2_5_72B, "qwen2.5-72b"),
        (MIXTRAL_8X7B, "mixtral-8x7b"),
        (DEEPSEEK_V3, "deepseek-v3"),
        (GPT_OSS_120B, "gpt-oss-120b"),
    ],
)
def test_a_config_json_gives_the_catalog_architecture(config, catalog_id):
    cataloged = MODEL_CATALOG[catalog_id]
    model = parsed(config, name=catalog_id, parameters=cataloged.parameters)
    assert model == cataloged


def test_a_multimodal_config_is_read_from_its_text_config():
    model = parsed(
        {"architectures": ["Mistral3ForConditionalGeneration"], "text_config": LLAMA_3_3_70B}
    )
    assert (model.layers, model.kv_heads, model.hidden_size) == (80, 8, 8192)


def test_experts_in_every_other_layer_leave_the_rest_dense():
    # Llama 4 Maverick: experts in every second of 48 layers; intermediate_size_mlp is the
    # dense layers' width, intermediate_size the experts'.
    config = {
        **LLAMA_3_3_70B,
        "num_hidden_layers": 48,
        "interleave_moe_layer_step": 2,
        "num_local_experts": 128,
        "intermediate_size": 8192,
        "intermediate_size_mlp": 16384,
    }
    model = parsed(config)
    assert (model.dense_layers, model.intermediate_size, model.expert_intermediate_size) == (
        24,
        16384,
        8192,
    )


def test_the_head_dim_key_wins_over_hidden_size_by_heads():
    model = parsed({**LLAMA_3_3_70B, "head_dim": 96})
    assert model.head_dim == 96


def test_without_kv_heads_every_attention_head_has_its_own():
    config = {k: v for k, v in LLAMA_3_3_70B.items() if k != "num_key_value_heads"}
    assert parsed(config).kv_heads == 64


def test_the_newer_dtype_key_is_read_too():
    config = {**LLAMA_3_3_70B, "dtype": "float16"}
    del config["torch_dtype"]
    assert parsed(config).dtype == "fp16"


def test_given_weight_bytes_win_over_the_quantization_config():
    assert parsed(DEEPSEEK_V3, weight_bytes_per_parameter=0.5).weight_bytes_per_parameter == 0.5


@pytest.mark.parametrize(
    "config, says",
    [
        ({**LLAMA_3_3_70B, "num_hidden_layers": None}, "has no num_hidden_layers"),
        ({"num_hidden_layers": 80}, "has no num_attention_heads"),
        ({**DEEPSEEK_V3, "qk_rope_head_dim": None}, "has no qk_rope_head_dim"),
        ({**LLAMA_3_3_70B, "torch_dtype": "int8"}, "has dtype 'int8'"),
        (
            {**LLAMA_3_3_70B, "quantization_config": {"quant_method": "awq"}},
            "quantizes its weights with 'awq'; set weightBytesPerParameter",
        ),
        ({**LLAMA_3_3_70B, "num_hidden_layers": 0}, "has num_hidden_layers 0, not a positive"),
        ({**LLAMA_3_3_70B, "num_attention_heads": "64"}, "has num_attention_heads '64', not a"),
        ({**LLAMA_3_3_70B, "head_dim": None, "hidden_size": True}, "has hidden_size True, not"),
        ({**LLAMA_3_3_70B, "torch_dtype": ["bfloat16"]}, "has dtype \\['bfloat16'\\]"),
        ({**LLAMA_3_3_70B, "quantization_config": "fp8"}, "quantizes its weights with None"),
        ({**LLAMA_3_3_70B, "num_local_experts": "8"}, "has num_local_experts '8', not a"),
        (
            {**LLAMA_3_3_70B, "num_local_experts": 8, "mlp_only_layers": 5},
            "holds a value of the wrong type or size \\(object of type 'int' has no len",
        ),
        (
            {
                **LLAMA_3_3_70B,
                "rope_scaling": {
                    "rope_type": "yarn",
                    "factor": 10**9,
                    "original_max_position_embeddings": "abc",
                },
            },
            "has original_max_position_embeddings 'abc', not a positive whole number",
        ),
        (
            {**LLAMA_3_3_70B, "num_hidden_layers": 10**400},
            "has num_hidden_layers 1000.*, not a positive whole number below 2\\^63",
        ),
    ],
)
def test_a_config_it_cannot_read_says_what_is_missing(config, says):
    with pytest.raises(ValueError, match=says):
        parsed(config)


def test_the_file_is_read_from_disk_and_named_by_its_path(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(LLAMA_3_3_70B))
    model = read_hf_config(HuggingFaceConfigFile(config_file=str(path), parameters=70.6e9))
    assert model.name == str(path)
    assert model.model_dump(exclude={"name"}) == MODEL_CATALOG["llama-3.3-70b"].model_dump(
        exclude={"name"}
    )


UNREADABLE_FILES = {
    "missing": (None, "no such file"),
    "not JSON": (b"{", "not a readable JSON file"),
    "a JSON list": (b"[]", "not a config.json"),
    "nested past JSON's recursion limit": (b"[" * 100_000, "not a readable JSON file"),
    "Latin-1": ('{"a": "\u00e9"}'.encode("latin-1"), "is not UTF-8 text \\(byte 0xe9 at line 1"),
    "binary": (b"\x00\x01", "is a binary file"),
    "too large": (b" " * (MAX_CONFIG_BYTES + 1), "is larger than 4 MiB"),
}


@pytest.mark.parametrize("case", UNREADABLE_FILES)
def test_a_missing_or_broken_file_is_reported(tmp_path, case):
    content, says = UNREADABLE_FILES[case]
    path = tmp_path / "config.json"
    if content is not None:
        path.write_bytes(content)
    with pytest.raises(ValueError, match=says):
        read_hf_config(HuggingFaceConfigFile(config_file=str(path), parameters=1e9))


@pytest.mark.parametrize("factor", [1e308, float("nan"), -2, "4"])
def test_a_hostile_rope_factor_leaves_the_context_length_unknown(factor):
    config = {**LLAMA_3_3_70B, "rope_scaling": {"rope_type": "yarn", "factor": factor}}
    assert parsed(config).context_length is None


def test_a_config_json_in_utf16_with_its_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "config.json"
    path.write_bytes(json.dumps(LLAMA_3_3_70B).encode("utf-16"))
    assert (
        read_hf_config(HuggingFaceConfigFile(config_file=str(path), parameters=70.6e9)).layers == 80
    )


@pytest.mark.parametrize(
    "special, says",
    [
        ("/dev/zero", "is a character device, not a file"),
        ("fifo", "is a named pipe \\(FIFO\\), not a file"),
        ("directory", "is a directory, not a file"),
    ],
)
def test_only_regular_files_are_opened_so_nothing_hangs_or_fills_memory(tmp_path, special, says):
    path = tmp_path / special
    if special == "fifo":
        os.mkfifo(path)
    elif special == "directory":
        path.mkdir()
    else:
        path = Path(special)
    with pytest.raises(ValueError, match=says):
        read_hf_config(HuggingFaceConfigFile(config_file=str(path), parameters=1e9))


@pytest.mark.parametrize(
    "changes, length",
    [
        ({"rope_scaling": {"rope_type": "yarn", "factor": 4.0}}, 131072 * 4),
        ({"rope_scaling": {"type": "linear", "factor": 2.0}}, 131072 * 2),
        ({"rope_scaling": {"rope_type": "longrope", "factor": 4.0}}, 131072),
        # vLLM takes the least of the length keys present.
        ({"seq_length": 4096}, 4096),
        # What it cannot be sure of, it leaves unchecked.
        ({"max_position_embeddings": None}, None),
        ({"rope_scaling": {"factor": 2.0}}, None),
        ({"model_type": "gemma3_text"}, None),
        # A length no model has is a claim, not a length: maxModelLen is then required.
        ({"max_position_embeddings": 10**12}, None),
        ({"rope_scaling": {"rope_type": "yarn", "factor": 2000.0}}, None),
        ({"max_position_embeddings": 10_485_760}, 10_485_760),
    ],
)
def test_the_context_length_is_derived_as_vllm_derives_it(changes, length):
    assert parsed({**LLAMA_3_3_70B, **changes}).context_length == length
