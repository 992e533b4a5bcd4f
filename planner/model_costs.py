"""FLOPs and bytes of a model's forward pass, from the shape its config.json gives.

A linear layer of p parameters costs 2p FLOPs per token (a multiply and an add). Attention
adds, per layer, the scores and the weighted sum over every (query, key) pair it attends to.
A mixture-of-experts layer runs only `experts_per_token` of its routed experts per token, plus
its shared experts, but holds all of them in memory.
"""

from dataclasses import dataclass

from components.model.architecture import ModelArchitecture

# Gated MLPs (SwiGLU: gate, up and down projections) have three matrices of hidden x width.
GATED_MLP_MATRICES = 3
# Without num_attention_heads, assume the common grouped-query ratio of 8 query heads per KV
# head (Llama 3 70B: 64/8; Qwen2.5-72B: 64/8).
QUERY_HEADS_PER_KV_HEAD = 8


@dataclass(frozen=True)
class ModelCosts:
    """Parameter counts by what a token uses; derived once per architecture."""

    layers: int
    moe_layers: int
    # Per token, whatever routing: attention projections, dense MLPs, shared experts, router.
    always_active_parameters: float
    # Routed experts: all of them (held in memory), and those one token runs.
    routed_expert_parameters: float
    routed_active_parameters: float
    experts: int
    experts_per_token: int
    # The output projection to the vocabulary, run once per token that needs logits.
    lm_head_parameters: float
    embedding_parameters: float
    # FLOPs per (query, key) pair per full-attention layer: prefill's attention, and decode's
    # (MLA decodes in the absorbed form, over the latent).
    prefill_pair_flops: float
    decode_pair_flops: float
    hidden_size: int

    @property
    def shape_parameters(self) -> float:
        return (
            self.always_active_parameters
            + self.routed_expert_parameters
            + self.lm_head_parameters
            + self.embedding_parameters
        )

    @property
    def routed_fraction(self) -> float:
        """The share of the weights' bytes in routed experts."""
        return self.routed_expert_parameters / self.shape_parameters


def _attention_parameters(model: ModelArchitecture, hidden: int, heads: int) -> float:
    if model.attention == "MLA":
        nope = model.qk_nope_head_dim or 0
        rope = model.qk_rope_head_dim or 0
        value = model.v_head_dim or nope or model.kv_lora_rank
        if model.q_lora_rank:
            query = hidden * model.q_lora_rank + model.q_lora_rank * heads * (nope + rope)
        else:
            query = hidden * heads * (nope + rope)
        latent = hidden * (model.kv_lora_rank + rope)
        expand = model.kv_lora_rank * heads * (nope + value)
        return query + latent + expand + heads * value * hidden
    head_dim = model.head_dim
    return hidden * heads * head_dim * 2 + 2 * hidden * model.kv_heads * head_dim


def _pair_flops(model: ModelArchitecture, heads: int) -> tuple[float, float]:
    """(prefill, decode) FLOPs per (query, key) pair per layer: QK^T and the weighted V."""
    if model.attention == "MLA":
        nope = model.qk_nope_head_dim or 0
        rope = model.qk_rope_head_dim
        value = model.v_head_dim or model.kv_lora_rank
        prefill = 2 * heads * (nope + rope) + 2 * heads * value
        # Absorbed: scores and values against the latent (kv_lora_rank) itself.
        decode = 2 * heads * (model.kv_lora_rank + rope) + 2 * heads * model.kv_lora_rank
        return prefill, decode
    per_pair = 4 * heads * model.head_dim
    return per_pair, per_pair


def model_costs(model: ModelArchitecture) -> ModelCosts:
    kv_heads = model.kv_heads or 1
    heads = model.attention_heads or kv_heads * QUERY_HEADS_PER_KV_HEAD
    prefill_pair, decode_pair = _pair_flops(model, heads)
    if model.hidden_size is None:
        # Only the parameter count is known: every parameter runs for every token.
        return ModelCosts(
            layers=model.layers,
            moe_layers=0,
            always_active_parameters=model.parameters,
            routed_expert_parameters=0.0,
            routed_active_parameters=0.0,
            experts=1,
            experts_per_token=1,
            lm_head_parameters=0.0,
            embedding_parameters=0.0,
            prefill_pair_flops=prefill_pair,
            decode_pair_flops=decode_pair,
            hidden_size=(model.head_dim or 128) * heads,
        )
    hidden = model.hidden_size
    attention = model.layers * _attention_parameters(model, hidden, heads)
    dense_mlp = GATED_MLP_MATRICES * hidden * (model.intermediate_size or 4 * hidden)
    experts = model.experts or 0
    moe_layers = model.layers - model.dense_layers if experts > 1 else 0
    dense_layers = model.layers - moe_layers
    expert_width = model.expert_intermediate_size or model.intermediate_size or 4 * hidden
    expert = GATED_MLP_MATRICES * hidden * expert_width
    shared_width = model.shared_expert_intermediate_size or expert_width
    shared = model.shared_experts * GATED_MLP_MATRICES * hidden * shared_width
    router = hidden * experts
    per_token = model.experts_per_token or min(2, experts) if moe_layers else 0
    vocab = model.vocab_size or 0
    return ModelCosts(
        layers=model.layers,
        moe_layers=moe_layers,
        always_active_parameters=attention
        + dense_layers * dense_mlp
        + moe_layers * (shared + router),
        routed_expert_parameters=moe_layers * experts * expert,
        routed_active_parameters=moe_layers * per_token * expert,
        experts=max(experts, 1),
        experts_per_token=max(per_token, 1),
        lm_head_parameters=vocab * hidden,
        embedding_parameters=vocab * hidden,
        prefill_pair_flops=prefill_pair,
        decode_pair_flops=decode_pair,
        hidden_size=hidden,
    )


def causal_pairs(model: ModelArchitecture, tokens: int) -> float:
    """(query, key) pairs a prompt of `tokens` attends to, summed over the layers."""
    full = tokens * (tokens + 1) / 2
    window = model.sliding_window or 0
    sliding = full if tokens <= window else window * (window + 1) / 2 + (tokens - window) * window
    return model.full_attention_layers * full + model.sliding_window_layers * sliding


def decode_pairs(model: ModelArchitecture, context: float) -> float:
    """Pairs one new token attends to with `context` tokens behind it, over the layers."""
    window = min(context, model.sliding_window or 0)
    return model.full_attention_layers * context + model.sliding_window_layers * window


@dataclass(frozen=True)
class Flops:
    """FLOPs of a piece of work by the unit that runs them: the linear layers outside the
    routed experts (at the weights' GEMM precision), attention's QK^T and weighted V (on 16-bit
    activations), and the routed experts' GEMMs."""

    linear: float
    attention: float
    experts: float = 0.0

    def __mul__(self, factor: float) -> "Flops":
        return Flops(self.linear * factor, self.attention * factor, self.experts * factor)


def prefill_flops(model: ModelArchitecture, costs: ModelCosts, tokens: int) -> Flops:
    """FLOPs to prefill one prompt of `tokens`, logits for its last token only."""
    return Flops(
        linear=2 * (costs.always_active_parameters * tokens + costs.lm_head_parameters),
        attention=costs.prefill_pair_flops * causal_pairs(model, tokens),
        experts=2 * costs.routed_active_parameters * tokens,
    )


def decode_token_flops(model: ModelArchitecture, costs: ModelCosts, context: float) -> Flops:
    """FLOPs to produce one token with `context` tokens behind it."""
    return Flops(
        linear=2 * (costs.always_active_parameters + costs.lm_head_parameters),
        attention=costs.decode_pair_flops * decode_pairs(model, context),
        experts=2 * costs.routed_active_parameters,
    )
