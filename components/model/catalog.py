"""Architectures of the models DPD is typically sized for, from their config.json files
(catalog.json, in the keys an endpoint's `architecture` takes).

Parameter counts are the publishers' totals; KV caches are bf16 (vLLM's `--kv-cache-dtype auto`).
Quantized weights: DeepSeek-V3/R1 and MiniMax-M2 ship FP8 (1 byte per parameter); GPT-OSS ships
its experts, nearly all its parameters, in MXFP4 (4.25 bits), and is counted at that rate; its
layers alternate a 128-token sliding window with full attention. Context lengths are as vLLM
derives them: Llama 3.1 and 3.3 131072 (rope_type llama3, not scaled further); Qwen2.5-72B 32768,
Qwen3 40960, MiniMax-M2 196608; Mixtral 32768; DeepSeek-V3/R1 and GPT-OSS use yarn, 4096 times
40 (163840) and 32 (131072). DeepSeek-V3 and R1 share one shape: MLA, 256 routed experts of
which a token uses 8, one shared expert, and 3 first dense layers.
"""

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
