"""Architectures of the models DPD is typically sized for, from their config.json files
(catalog.json, in the keys an endpoint's `architecture` takes).

Parameter counts are the publishers' totals. KV caches are bf16 (vLLM's `--kv-cache-dtype auto`
takes the model's dtype); where a checkpoint ships quantized weights, the weights' bytes per
parameter are given apart from the KV dtype: DeepSeek-V3/R1 and MiniMax-M2 ship FP8 weights
(block-scaled e4m3), 1 byte per parameter; GPT-OSS ships its MoE experts in MXFP4, 4-bit values
plus one 8-bit scale per 32-value block, 4.25 bits (0.53125 bytes) per parameter, and as the
experts hold nearly all parameters the whole model is counted at that rate. GPT-OSS's layers
alternate between a 128-token sliding window and full attention.

Context lengths are as vLLM derives them from each config.json: Llama 3.1 and 3.3 give
max_position_embeddings 131072 with rope_type llama3, which vLLM does not scale further;
Qwen2.5-72B-Instruct 32768, Qwen3 40960 and MiniMax-M2 196608 with no rope_scaling;
Mixtral-8x7B 32768; DeepSeek-V3/R1 and GPT-OSS use yarn, original_max_position_embeddings 4096
times factor 40 (163840) and 32 (131072). DeepSeek-V3 and R1 share one shape: MLA, 256 routed
experts of which a token uses 8, one shared expert, and 3 first layers with a dense MLP.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from components.model.architecture import ModelArchitecture

MODEL_CATALOG: dict[str, ModelArchitecture] = {
    name: ModelArchitecture.model_validate({"name": name, **fields})
    for name, fields in json.loads((Path(__file__).parent / "catalog.json").read_text()).items()
}


# Where each catalog model is published: its Hugging Face repository (the model cards at
# huggingface.co/<repository>), whose name an endpoint serves it by.
PUBLISHED: dict[str, str] = json.loads((Path(__file__).parent / "published.json").read_text())


def catalog_id_for_model_name(model_name: str) -> str | None:
    """The catalog id `model_name` names, standing whole in it (`DeepSeek-V3.1` is not
    `deepseek-v3`); None unless exactly one id fits."""
    name = model_name.lower()
    found = [
        catalog_id
        for catalog_id in MODEL_CATALOG
        if re.search(rf"(?<![a-z0-9.]){re.escape(catalog_id)}(?![a-z0-9.])", name)
    ]
    return found[0] if len(found) == 1 else None
