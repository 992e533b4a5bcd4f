"""What sizes a model's KV cache and weights: the facts of its architecture.

The same shape describes a catalog entry, a parsed Hugging Face config.json and an endpoint's
explicit `architecture` fields, so every source is checked by the same rules.
"""

from typing import Literal

from pydantic import Field, model_validator

from components.core.spec import Spec

Dtype = Literal["bf16", "fp16", "fp32", "fp8"]
DTYPE_BYTES: dict[str, int] = {"bf16": 2, "fp16": 2, "fp32": 4, "fp8": 1}
# Ten times the longest context a model publishes (Llama 4 Scout's 10M tokens, its model card):
# past it a config.json claims what no model holds, and vLLM would size its cache for it.
LONGEST_CONTEXT = 2**27

AttentionKind = Literal["GQA", "MLA", "sliding window"]


class ModelArchitecture(Spec):
    # A label for reports: the catalog id, the config.json path, or the user's own.
    name: str = "custom"
    layers: int = Field(ge=1)
    # Grouped-query (or multi-head) attention: K and V per KV head, per layer.
    kv_heads: int | None = Field(None, ge=1)
    head_dim: int | None = Field(None, ge=1)
    # Multi-head latent attention (DeepSeek): one compressed latent plus the rotary key per
    # layer, shared by every head.
    kv_lora_rank: int | None = Field(None, ge=1)
    qk_rope_head_dim: int | None = Field(None, ge=0)
    # Layers that attend only to the last `sliding_window` tokens, so keep at most that many.
    sliding_window: int | None = Field(None, ge=1)
    sliding_window_layers: int = Field(0, ge=0)
    # The KV cache's dtype (vLLM's --kv-cache-dtype auto: the model's dtype).
    dtype: Dtype = "bf16"
    # Total parameters, every expert included: all of them sit in GPU memory.
    parameters: float = Field(gt=0)
    # Absent: the weights are in `dtype`. Quantized checkpoints store fewer bytes per
    # parameter than their KV cache uses.
    weight_bytes_per_parameter: float | None = Field(None, gt=0)
    moe: bool = False
    # What the compute of a forward pass needs beyond the KV cache (FLOPs per token, the
    # weights each step reads). Optional: without them a token costs 2 x parameters FLOPs.
    hidden_size: int | None = Field(None, ge=1)
    attention_heads: int | None = Field(None, ge=1)
    vocab_size: int | None = Field(None, ge=1)
    # The MLP width of dense layers (of all layers in a dense model).
    intermediate_size: int | None = Field(None, ge=1)
    # Mixture of experts: routed experts per MoE layer, how many each token uses, their
    # width, the always-on shared experts beside them, and the first layers that keep a dense
    # MLP instead (DeepSeek's first_k_dense_replace).
    experts: int | None = Field(None, ge=1)
    experts_per_token: int | None = Field(None, ge=1)
    expert_intermediate_size: int | None = Field(None, ge=1)
    shared_experts: int = Field(0, ge=0)
    shared_expert_intermediate_size: int | None = Field(None, ge=1)
    dense_layers: int = Field(0, ge=0)
    # Multi-head latent attention's query compression and per-head widths (DeepSeek).
    q_lora_rank: int | None = Field(None, ge=1)
    qk_nope_head_dim: int | None = Field(None, ge=0)
    v_head_dim: int | None = Field(None, ge=1)
    # The longest context vLLM accepts for the model without VLLM_ALLOW_LONG_MAX_MODEL_LEN: what
    # it derives from config.json (max_position_embeddings, scaled by rope_scaling where vLLM
    # applies the factor). None: not known, and not checked.
    context_length: int | None = Field(None, ge=1, le=LONGEST_CONTEXT)

    @model_validator(mode="after")
    def _one_attention_kind(self) -> "ModelArchitecture":
        gqa = self.kv_heads is not None and self.head_dim is not None
        mla = self.kv_lora_rank is not None and self.qk_rope_head_dim is not None
        attention_fields = (self.kv_heads, self.head_dim, self.kv_lora_rank, self.qk_rope_head_dim)
        if gqa == mla or sum(value is not None for value in attention_fields) != 2:
            raise ValueError(
                "set kvHeads and headDim (grouped-query attention), or kvLoraRank and "
                "qkRopeHeadDim (multi-head latent attention), not a mix"
            )
        if (self.sliding_window is None) != (self.sliding_window_layers == 0):
            raise ValueError("set slidingWindow and slidingWindowLayers together")
        if self.sliding_window_layers > self.layers:
            raise ValueError(
                f"slidingWindowLayers {self.sliding_window_layers} is more than the "
                f"{self.layers} layers"
            )
        return self

    @property
    def attention(self) -> AttentionKind:
        if self.kv_lora_rank is not None:
            return "MLA"
        return "sliding window" if self.sliding_window_layers else "GQA"

    @property
    def full_attention_layers(self) -> int:
        return self.layers - self.sliding_window_layers

    @property
    def kv_dtype_bytes(self) -> int:
        return DTYPE_BYTES[self.dtype]

    @property
    def weight_bytes(self) -> float:
        per_parameter = self.weight_bytes_per_parameter or self.kv_dtype_bytes
        return self.parameters * per_parameter
