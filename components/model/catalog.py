"""Architectures of the models DPD is typically sized for, from their config.json files.

Parameter counts are the publishers' totals. KV caches are bf16 (vLLM's `--kv-cache-dtype auto`
takes the model's dtype); where a checkpoint ships quantized weights, the weights' bytes per
parameter are given apart from the KV dtype.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from components.model.architecture import ModelArchitecture

# DeepSeek-V3 ships FP8 weights (block-scaled e4m3), one byte per parameter.
FP8_BYTES = 1.0
# GPT-OSS ships its MoE expert weights in MXFP4: 4-bit values plus one 8-bit scale per
# 32-value block, 4.25 bits per parameter. Attention and embeddings stay bf16; the experts
# hold nearly all parameters, so the whole model is counted at the MXFP4 rate.
MXFP4_BYTES = 4.25 / 8


# Context lengths as vLLM derives them from each config.json: Llama 3.1 and 3.3 give
# max_position_embeddings 131072 with rope_type llama3, which vLLM does not scale further;
# Qwen2.5-72B-Instruct 32768, Qwen3 40960 and MiniMax-M2 196608 with no rope_scaling;
# Mixtral-8x7B 32768; DeepSeek-V3/R1 and GPT-OSS use yarn, original_max_position_embeddings
# 4096 times factor 40 (163840) and 32 (131072).
LLAMA_3_CONTEXT = 131072
LLAMA_VOCAB = 128_256
QWEN_VOCAB = 151_936
GPT_OSS_VOCAB = 201_088


def _gqa(
    name: str,
    layers: int,
    parameters: float,
    *,
    hidden: int,
    heads: int,
    intermediate: int,
    vocab: int,
    context: int,
    kv_heads: int = 8,
    **shape: float,
) -> ModelArchitecture:
    return ModelArchitecture(
        name=name,
        layers=layers,
        context_length=context,
        kv_heads=kv_heads,
        head_dim=shape.pop("head_dim", 128),
        parameters=parameters,
        hidden_size=hidden,
        attention_heads=heads,
        intermediate_size=intermediate,
        vocab_size=vocab,
        moe="experts" in shape,
        **shape,
    )


def _llama_70b(name: str) -> ModelArchitecture:
    # Llama 3.1 and 3.3 70B share one config.json shape.
    return _gqa(
        name,
        80,
        70.6e9,
        hidden=8192,
        heads=64,
        intermediate=28_672,
        vocab=LLAMA_VOCAB,
        context=LLAMA_3_CONTEXT,
    )


def _deepseek(name: str) -> ModelArchitecture:
    # DeepSeek-V3 and R1 share one config.json shape: MLA, 256 routed experts of which a token
    # uses 8, one shared expert, and 3 first layers with a dense MLP.
    return ModelArchitecture(
        name=name,
        layers=61,
        kv_lora_rank=512,
        qk_rope_head_dim=64,
        parameters=671e9,
        weight_bytes_per_parameter=FP8_BYTES,
        moe=True,
        context_length=4096 * 40,
        hidden_size=7168,
        attention_heads=128,
        vocab_size=129_280,
        intermediate_size=18_432,
        experts=256,
        experts_per_token=8,
        expert_intermediate_size=2048,
        shared_experts=1,
        dense_layers=3,
        q_lora_rank=1536,
        qk_nope_head_dim=128,
        v_head_dim=128,
    )


def _gpt_oss(name: str, layers: int, experts: int, parameters: float) -> ModelArchitecture:
    return _gqa(
        name,
        layers,
        parameters,
        hidden=2880,
        heads=64,
        intermediate=2880,
        vocab=GPT_OSS_VOCAB,
        context=4096 * 32,
        head_dim=64,
        # Layers alternate between a 128-token sliding window and full attention.
        sliding_window=128,
        sliding_window_layers=layers // 2,
        weight_bytes_per_parameter=MXFP4_BYTES,
        experts=experts,
        experts_per_token=4,
        expert_intermediate_size=2880,
    )


MODEL_CATALOG: dict[str, ModelArchitecture] = {
    model.name: model
    for model in (
        _gqa(
            "llama-3.1-8b",
            32,
            8.03e9,
            hidden=4096,
            heads=32,
            intermediate=14_336,
            vocab=LLAMA_VOCAB,
            context=LLAMA_3_CONTEXT,
        ),
        _llama_70b("llama-3.1-70b"),
        _llama_70b("llama-3.3-70b"),
        _gqa(
            "llama-3.1-405b",
            126,
            405e9,
            hidden=16_384,
            heads=128,
            intermediate=53_248,
            vocab=LLAMA_VOCAB,
            context=LLAMA_3_CONTEXT,
        ),
        _gqa(
            "qwen2.5-72b",
            80,
            72.7e9,
            hidden=8192,
            heads=64,
            intermediate=29_568,
            vocab=152_064,
            context=32768,
        ),
        _gqa(
            "qwen3-32b",
            64,
            32.8e9,
            hidden=5120,
            heads=64,
            intermediate=25_600,
            vocab=QWEN_VOCAB,
            context=40960,
        ),
        _gqa(
            "mixtral-8x7b",
            32,
            46.7e9,
            hidden=4096,
            heads=32,
            intermediate=14_336,
            vocab=32_000,
            context=32768,
            experts=8,
            experts_per_token=2,
            expert_intermediate_size=14_336,
        ),
        _deepseek("deepseek-v3"),
        _gpt_oss("gpt-oss-120b", 36, 128, 116.8e9),
        _gqa(
            "qwen3-30b-a3b",
            48,
            30.5e9,
            hidden=2048,
            heads=32,
            intermediate=6144,
            vocab=QWEN_VOCAB,
            context=40960,
            kv_heads=4,
            experts=128,
            experts_per_token=8,
            expert_intermediate_size=768,
        ),
        _gqa(
            "qwen3-235b-a22b",
            94,
            235.1e9,
            hidden=4096,
            heads=64,
            intermediate=12_288,
            vocab=QWEN_VOCAB,
            context=40960,
            kv_heads=4,
            experts=128,
            experts_per_token=8,
            expert_intermediate_size=1536,
        ),
        _deepseek("deepseek-r1"),
        # MiniMax-M2 ships FP8 weights, like DeepSeek's.
        _gqa(
            "minimax-m2",
            62,
            229e9,
            hidden=3072,
            heads=48,
            intermediate=1536,
            vocab=200_064,
            context=196_608,
            experts=256,
            experts_per_token=8,
            expert_intermediate_size=1536,
            weight_bytes_per_parameter=FP8_BYTES,
        ),
        _gpt_oss("gpt-oss-20b", 24, 32, 20.9e9),
    )
}


# Where each catalog model is published: its Hugging Face repository (the model cards at
# huggingface.co/<repository>), whose name an endpoint serves it by.
PUBLISHED: dict[str, str] = json.loads((Path(__file__).parent / "published.json").read_text())


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
