"""Architectures of the models DPD is typically sized for, from their config.json files.

Parameter counts are the publishers' totals. KV caches are bf16 (vLLM's `--kv-cache-dtype auto`
takes the model's dtype); where a checkpoint ships quantized weights, the weights' bytes per
parameter are given apart from the KV dtype.
"""

from __future__ import annotations

import re

from components.model.architecture import ModelArchitecture

# DeepSeek-V3 ships FP8 weights (block-scaled e4m3), one byte per parameter.
FP8_BYTES = 1.0
# GPT-OSS ships its MoE expert weights in MXFP4: 4-bit values plus one 8-bit scale per
# 32-value block, 4.25 bits per parameter. Attention and embeddings stay bf16; the experts
# hold nearly all parameters, so the whole model is counted at the MXFP4 rate.
MXFP4_BYTES = 4.25 / 8


def _llama_like(
    name: str, layers: int, parameters: float, context_length: int, moe: bool = False
) -> ModelArchitecture:
    return ModelArchitecture(
        name=name,
        layers=layers,
        kv_heads=8,
        head_dim=128,
        parameters=parameters,
        moe=moe,
        context_length=context_length,
    )


# Context lengths as vLLM derives them from each config.json: Llama 3.1 and 3.3 give
# max_position_embeddings 131072 with rope_type llama3, which vLLM does not scale further;
# Qwen2.5-72B-Instruct 32768 and Qwen3-32B 40960 with no rope_scaling; Mixtral-8x7B 32768;
# DeepSeek-V3 and GPT-OSS-120B use yarn, original_max_position_embeddings 4096 times factor
# 40 (163840) and 32 (131072).
LLAMA_3_CONTEXT = 131072


MODEL_CATALOG: dict[str, ModelArchitecture] = {
    model.name: model
    for model in (
        _llama_like("llama-3.1-8b", 32, 8.03e9, LLAMA_3_CONTEXT),
        _llama_like("llama-3.1-70b", 80, 70.6e9, LLAMA_3_CONTEXT),
        _llama_like("llama-3.3-70b", 80, 70.6e9, LLAMA_3_CONTEXT),
        _llama_like("llama-3.1-405b", 126, 405e9, LLAMA_3_CONTEXT),
        _llama_like("qwen2.5-72b", 80, 72.7e9, 32768),
        _llama_like("qwen3-32b", 64, 32.8e9, 40960),
        _llama_like("mixtral-8x7b", 32, 46.7e9, 32768, moe=True),
        ModelArchitecture(
            name="deepseek-v3",
            layers=61,
            kv_lora_rank=512,
            qk_rope_head_dim=64,
            parameters=671e9,
            weight_bytes_per_parameter=FP8_BYTES,
            moe=True,
            context_length=4096 * 40,
        ),
        ModelArchitecture(
            name="gpt-oss-120b",
            layers=36,
            kv_heads=8,
            head_dim=64,
            # Layers alternate between a 128-token sliding window and full attention.
            sliding_window=128,
            sliding_window_layers=18,
            parameters=116.8e9,
            weight_bytes_per_parameter=MXFP4_BYTES,
            moe=True,
            context_length=4096 * 32,
        ),
    )
}


def catalog_id_for_model_name(model_name: str) -> str | None:
    """The catalog id that `model_name` names, e.g. `Llama-3.3-70B-Instruct` -> `llama-3.3-70b`.

    The id must stand as a whole in the name: a letter, digit or dot on either side makes it
    another model (`DeepSeek-V3.1` is not `deepseek-v3`). None unless exactly one id fits.
    """
    name = model_name.lower()
    found = [
        catalog_id
        for catalog_id in MODEL_CATALOG
        if re.search(rf"(?<![a-z0-9.]){re.escape(catalog_id)}(?![a-z0-9.])", name)
    ]
    return found[0] if len(found) == 1 else None
