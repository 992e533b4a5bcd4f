"""A model architecture read from a Hugging Face `config.json`.

config.json describes the layers, but not how many parameters the checkpoint holds, so the
setting that names the file gives that count beside it.
"""

import json
import math
from pathlib import Path
from typing import Any

from pydantic import Field, ValidationError

from components.core.spec import WHOLE_NUMBER_LIMIT, Spec
from components.core.user_files import UnreadableFileError, read_text
from components.model.architecture import LONGEST_CONTEXT, ModelArchitecture

HF_DTYPES = {"bfloat16": "bf16", "float16": "fp16", "float32": "fp32"}
# Bytes per parameter of quantized checkpoints: FP8 (block-scaled e4m3) one byte; MXFP4 4-bit
# values plus one 8-bit scale per 32-value block, 4.25 bits.
QUANTIZED_WEIGHT_BYTES = {"fp8": 1.0, "mxfp4": 4.25 / 8}
EXPERT_COUNT_KEYS = ("num_local_experts", "n_routed_experts", "num_experts")
# A model's config.json is a few KiB; a file past this is not one.
MAX_CONFIG_BYTES = 4 * 2**20
# Families name the experts each token uses differently (GPT-OSS: experts_per_token).
EXPERTS_PER_TOKEN_KEYS = ("num_experts_per_tok", "experts_per_token", "moe_topk")


class HuggingFaceConfigFile(Spec):
    # Relative to the working directory: the project directory, where Pulumi runs the program.
    config_file: str = Field(min_length=1)
    parameters: float = Field(gt=0)
    # Absent: from quantization_config (fp8, mxfp4) or else the config's dtype.
    weight_bytes_per_parameter: float | None = Field(None, gt=0)


def _count(config: dict[str, Any], key: str) -> int | None:
    """A whole number of the config (layers, heads, sizes), if it names one."""
    value = config.get(key)
    if value is not None and (type(value) is not int or not 1 <= value < WHOLE_NUMBER_LIMIT):
        raise ValueError(f"has {key} {value!r}, not a positive whole number below 2^63")
    return value


def _required(config: dict[str, Any], key: str) -> int:
    value = _count(config, key)
    if value is None:
        raise ValueError(f"has no {key}")
    return value


def _dtype(config: dict[str, Any]) -> str:
    # Newer transformers write `dtype`; some checkpoints (GPT-OSS) name none and serve bf16.
    name = config.get("dtype") or config.get("torch_dtype") or "bfloat16"
    if not isinstance(name, str) or name not in HF_DTYPES:
        raise ValueError(f"has dtype {name!r}; understood: {', '.join(HF_DTYPES)}")
    return HF_DTYPES[name]


def _weight_bytes_per_parameter(config: dict[str, Any]) -> float | None:
    quantization = config.get("quantization_config")
    if quantization is None:
        return None
    method = quantization.get("quant_method") if isinstance(quantization, dict) else None
    if method not in QUANTIZED_WEIGHT_BYTES:
        raise ValueError(
            f"quantizes its weights with {method!r}; set weightBytesPerParameter beside configFile"
        )
    return QUANTIZED_WEIGHT_BYTES[method]


def _attention(config: dict[str, Any]) -> dict[str, int]:
    if (kv_lora_rank := _count(config, "kv_lora_rank")) is not None:
        return {
            "kv_lora_rank": kv_lora_rank,
            "qk_rope_head_dim": _required(config, "qk_rope_head_dim"),
        }
    heads = _required(config, "num_attention_heads")
    head_dim = _count(config, "head_dim") or _required(config, "hidden_size") // heads
    return {"kv_heads": _count(config, "num_key_value_heads") or heads, "head_dim": head_dim}


def _sliding_window(config: dict[str, Any]) -> dict[str, int]:
    # Only `layer_types` says which layers slide. A bare sliding_window (Qwen's, switched off
    # by use_sliding_window: false) counts as full attention: that over-counts, never under.
    layer_types = config.get("layer_types")
    sliding = layer_types.count("sliding_attention") if isinstance(layer_types, list) else 0
    if not sliding:
        return {}
    return {"sliding_window": _required(config, "sliding_window"), "sliding_window_layers": sliding}


def _first(config: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((config[key] for key in keys if config.get(key) is not None), None)


def _experts(config: dict[str, Any]) -> dict[str, Any]:
    """The mixture of experts, if any: Mixtral, MiniMax-M2 and GPT-OSS give the experts'
    width as intermediate_size; Qwen-MoE and DeepSeek as moe_intermediate_size, keeping
    intermediate_size for their dense layers."""
    experts = _first(config, EXPERT_COUNT_KEYS)
    if not experts or experts <= 1:
        return {}
    expert_width = config.get("moe_intermediate_size") or config.get("intermediate_size")
    # DeepSeek's first_k_dense_replace; Qwen-MoE's mlp_only_layers lists its dense layers;
    # Llama 4 and Qwen2-MoE may put experts in every n-th layer only.
    step = config.get("interleave_moe_layer_step") or config.get("decoder_sparse_step") or 1
    layers = config.get("num_hidden_layers") or 0
    dense = (
        config.get("first_k_dense_replace")
        or len(config.get("mlp_only_layers") or [])
        or (layers - layers // step if step > 1 else 0)
    )
    shared = config.get("n_shared_experts") or (
        1 if config.get("shared_expert_intermediate_size") else 0
    )
    return {
        "experts": experts,
        "experts_per_token": _first(config, EXPERTS_PER_TOKEN_KEYS),
        "expert_intermediate_size": expert_width,
        "shared_experts": shared,
        "shared_expert_intermediate_size": config.get("shared_expert_intermediate_size"),
        "dense_layers": dense,
    }


def text_config(config: dict[str, Any]) -> dict[str, Any]:
    """The language model's part of a config.json: multimodal checkpoints (Llama 4, Mistral 3,
    Qwen-VL) nest it under text_config."""
    nested = config.get("text_config")
    if config.get("num_hidden_layers") is None and isinstance(nested, dict):
        return {**config, **nested}
    return config


# The config.json keys vLLM takes the model's length from (the least of those present), and
# the rope types whose factor it does not apply. Source: vLLM's `_get_and_verify_max_len`
# (vllm/config/model.py).
LENGTH_KEYS = (
    "max_position_embeddings",
    "n_positions",
    "max_seq_len",
    "seq_length",
    "model_max_length",
    "max_sequence_length",
    "max_seq_length",
    "seq_len",
)
UNSCALED_ROPE_TYPES = ("su", "longrope", "llama3")


def _context_length(config: dict[str, Any]) -> int | None:
    """What vLLM derives as the model's longest context; None where this reading is unsure,
    or the file claims more than any model has (maxModelLen is then required)."""
    lengths = [
        config[k]
        for k in LENGTH_KEYS
        if type(config.get(k)) is int and 1 <= config[k] <= LONGEST_CONTEXT
    ]
    rope = config.get("rope_scaling") or config.get("rope_parameters")
    if not lengths or "gemma3" in str(config.get("model_type")):
        return None
    length = min(lengths)
    if rope is None:
        return length
    rope_type = rope.get("rope_type") or rope.get("type") if isinstance(rope, dict) else None
    factor = rope.get("factor", 1) if isinstance(rope, dict) else None
    if not isinstance(rope_type, str) or type(factor) not in (int, float):
        return None
    if rope_type in UNSCALED_ROPE_TYPES:
        return length
    if rope_type == "yarn":
        length = _count(rope, "original_max_position_embeddings") or length
    # A hostile factor (NaN, 1e308, negative) gives no context length rather than a crash.
    scaled = length * factor
    return int(scaled) if math.isfinite(scaled) and 1 <= scaled <= LONGEST_CONTEXT else None


def architecture_from_hf_config(
    config: dict[str, Any],
    *,
    name: str,
    parameters: float,
    weight_bytes_per_parameter: float | None = None,
) -> ModelArchitecture:
    """The architecture `config` describes; ValueError says what it lacks."""
    config = text_config(config)
    try:
        return ModelArchitecture(
            name=name,
            layers=_required(config, "num_hidden_layers"),
            **_attention(config),
            **_sliding_window(config),
            dtype=_dtype(config),
            parameters=parameters,
            weight_bytes_per_parameter=(
                weight_bytes_per_parameter or _weight_bytes_per_parameter(config)
            ),
            moe=any((_count(config, key) or 0) > 1 for key in EXPERT_COUNT_KEYS),
            # What FLOPs and bytes per token need beyond the KV cache.
            hidden_size=config.get("hidden_size"),
            attention_heads=config.get("num_attention_heads"),
            vocab_size=config.get("vocab_size"),
            # Llama 4 names its dense layers' width apart from its experts'.
            intermediate_size=config.get("intermediate_size_mlp")
            or config.get("intermediate_size"),
            q_lora_rank=config.get("q_lora_rank"),
            qk_nope_head_dim=config.get("qk_nope_head_dim"),
            v_head_dim=config.get("v_head_dim"),
            **_experts(config),
            context_length=_context_length(config),
        )
    except ValidationError as invalid:
        # One line, as every configuration problem is.
        reasons = "; ".join(
            " ".join([*map(str, e["loc"]), e["msg"].removeprefix("Value error, ")])
            for e in invalid.errors()
        )
        raise ValueError(f"describes no architecture this tool understands: {reasons}") from None
    except (TypeError, ArithmeticError) as wrong:
        # The file is the user's, or a model author's: a count written as text, a step of 0.
        raise ValueError(f"holds a value of the wrong type or size ({wrong})") from None


def read_hf_config(setting: HuggingFaceConfigFile) -> ModelArchitecture:
    """The architecture of the config.json `setting` names; ValueError says what is wrong."""
    try:
        config = json.loads(read_text(Path(setting.config_file), MAX_CONFIG_BYTES))
    except UnreadableFileError as unreadable:
        raise ValueError(str(unreadable)) from None
    except (json.JSONDecodeError, RecursionError) as invalid:
        raise ValueError(f"is not a readable JSON file ({invalid})") from None
    if not isinstance(config, dict):
        raise ValueError("is not a config.json object")
    return architecture_from_hf_config(
        config,
        name=setting.config_file,
        parameters=setting.parameters,
        weight_bytes_per_parameter=setting.weight_bytes_per_parameter,
    )
