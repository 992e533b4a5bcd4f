"""FLOPs and bytes per token of each model family, against figures worked by hand from their
config.json shapes."""

import pytest

from components.model.catalog import MODEL_CATALOG
from planner.model_costs import (
    causal_pairs,
    decode_pairs,
    decode_token_flops,
    model_costs,
    prefill_flops,
)

# Llama 3.3 70B: hidden 8192, 64 heads of 128, 8 KV heads, MLP 28,672, 80 layers, vocab 128,256.
LLAMA_70B_ATTENTION = 8192 * 64 * 128 * 2 + 2 * 8192 * 8 * 128  # q, o; k, v
LLAMA_70B_MLP = 3 * 8192 * 28_672
LLAMA_70B_VOCAB = 128_256 * 8192

# DeepSeek-V3: hidden 7168, 128 heads, q_lora 1536, kv_lora 512, nope 128 + rope 64, v 128;
# 3 dense layers (MLP 18,432), 58 MoE layers of 256 experts (width 2048), 8 per token, 1 shared.
DEEPSEEK_ATTENTION = (
    7168 * 1536
    + 1536 * 128 * (128 + 64)  # query, through its low-rank compression
    + 7168 * (512 + 64)  # the KV latent and the rotary key
    + 512 * 128 * (128 + 128)  # the latent expanded into keys and values
    + 128 * 128 * 7168  # output
)
DEEPSEEK_EXPERT = 3 * 7168 * 2048


def active(costs) -> float:
    """Parameters one token runs through, the LM head included."""
    return (
        costs.always_active_parameters + costs.routed_active_parameters + costs.lm_head_parameters
    )


def test_a_dense_model_runs_every_parameter_but_the_input_embedding():
    costs = model_costs(MODEL_CATALOG["llama-3.3-70b"])
    assert costs.always_active_parameters == 80 * (LLAMA_70B_ATTENTION + LLAMA_70B_MLP)
    assert costs.routed_expert_parameters == 0
    assert costs.shape_parameters == pytest.approx(70.6e9, rel=0.005)
    assert active(costs) == 80 * (LLAMA_70B_ATTENTION + LLAMA_70B_MLP) + LLAMA_70B_VOCAB


def test_deepseek_counts_mla_its_first_dense_layers_and_its_shared_expert():
    costs = model_costs(MODEL_CATALOG["deepseek-v3"])
    per_moe_layer = DEEPSEEK_EXPERT + 7168 * 256  # the shared expert and the router
    assert costs.moe_layers == 58
    assert costs.always_active_parameters == (
        61 * DEEPSEEK_ATTENTION + 3 * 3 * 7168 * 18_432 + 58 * per_moe_layer
    )
    assert costs.routed_expert_parameters == 58 * 256 * DEEPSEEK_EXPERT
    assert costs.routed_active_parameters == 58 * 8 * DEEPSEEK_EXPERT
    # The publisher's figures: 671B in all, 37B activated per token.
    assert costs.shape_parameters == pytest.approx(671e9, rel=0.01)
    assert active(costs) == pytest.approx(37e9, rel=0.02)


@pytest.mark.parametrize(
    "catalog_id, total, activated",
    [
        # The publishers' totals and activated parameters.
        ("mixtral-8x7b", 46.7e9, 12.9e9),
        ("qwen3-235b-a22b", 235e9, 22e9),
        ("qwen3-30b-a3b", 30.5e9, 3.3e9),
        ("gpt-oss-120b", 116.8e9, 5.1e9),
        ("gpt-oss-20b", 20.9e9, 3.6e9),
        ("minimax-m2", 229e9, 10e9),
    ],
)
def test_moe_totals_and_active_parameters_match_the_publishers(catalog_id, total, activated):
    costs = model_costs(MODEL_CATALOG[catalog_id])
    assert costs.shape_parameters == pytest.approx(total, rel=0.03)
    assert active(costs) == pytest.approx(activated, rel=0.08)


def test_mixtral_and_minimax_take_the_expert_width_from_intermediate_size():
    mixtral = model_costs(MODEL_CATALOG["mixtral-8x7b"])
    assert mixtral.routed_active_parameters == 32 * 2 * 3 * 4096 * 14_336
    minimax = model_costs(MODEL_CATALOG["minimax-m2"])
    assert minimax.routed_expert_parameters == 62 * 256 * 3 * 3072 * 1536


def test_prefill_flops_are_twice_the_linear_parameters_per_token_plus_causal_attention():
    model = MODEL_CATALOG["llama-3.3-70b"]
    costs = model_costs(model)
    tokens = 1000
    linear = 2 * 80 * (LLAMA_70B_ATTENTION + LLAMA_70B_MLP) * tokens
    # QK^T and the weighted V: 2 x 2 x heads x head_dim FLOPs per (query, key) pair, over the
    # 1000 x 1001 / 2 pairs of a causal prompt, in each of 80 layers.
    attention = 4 * 64 * 128 * 80 * tokens * (tokens + 1) / 2
    logits = 2 * LLAMA_70B_VOCAB  # for the last token only
    flops = prefill_flops(model, costs, tokens)
    assert flops.linear == pytest.approx(linear + logits)
    assert flops.attention == pytest.approx(attention)


def test_mla_decodes_against_its_latent():
    model = MODEL_CATALOG["deepseek-v3"]
    costs = model_costs(model)
    assert costs.decode_pair_flops == 2 * 128 * (512 + 64) + 2 * 128 * 512
    assert costs.prefill_pair_flops == 2 * 128 * (128 + 64) + 2 * 128 * 128
    context = 4096
    flops = decode_token_flops(model, costs, context)
    assert flops.linear + flops.experts == pytest.approx(2 * active(costs))
    assert flops.attention == pytest.approx(costs.decode_pair_flops * 61 * context)


def test_sliding_window_layers_attend_to_at_most_their_window():
    model = MODEL_CATALOG["gpt-oss-120b"]  # 18 full layers, 18 with a 128-token window
    assert decode_pairs(model, 10_000) == 18 * 10_000 + 18 * 128
    full = 1000 * 1001 / 2
    window = 128 * 129 / 2 + (1000 - 128) * 128
    assert causal_pairs(model, 1000) == 18 * full + 18 * window


def test_a_model_known_only_by_its_parameter_count_runs_them_all():
    model = MODEL_CATALOG["llama-3.3-70b"].model_copy(update={"hidden_size": None})
    costs = model_costs(model)
    assert active(costs) == model.parameters
    assert costs.routed_fraction == 0
