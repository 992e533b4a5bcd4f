"""What one replica reads, computes and moves per phase."""

import pytest

from components.model.catalog import MODEL_CATALOG
from planner.efficiency import ENGINE_EFFICIENCY, KV_TRANSFER_BANDWIDTH
from planner.model_costs import model_costs
from planner.phases import (
    Parallelism,
    activation_bytes_per_gpu,
    chunk_seconds,
    decode_step_seconds,
    kv_bytes_per_rank,
    kv_transfer_seconds,
    prefill_seconds,
    touched_expert_fraction,
    weight_bytes_per_gpu,
)
from planner.predict import deployment_of
from planner.scenario import Scenario


def deployment(catalog_id, instance="ml.p5.48xlarge", precision="bf16"):
    """The catalog model on vLLM, its weights in `precision`."""
    scenario = {"model": {"name": catalog_id}, "instanceType": instance, "precision": precision}
    return deployment_of(Scenario.model_validate(scenario))


def test_dense_weights_split_over_tensor_parallel_ranks():
    llama = deployment("llama-3.3-70b")
    assert weight_bytes_per_gpu(llama, Parallelism(4)) == pytest.approx(70.6e9 * 2 / 4)
    # Data-parallel attention groups each hold their own copy.
    assert weight_bytes_per_gpu(llama, Parallelism(4, 2)) == pytest.approx(70.6e9 * 2 / 4)


def test_routed_experts_spread_over_every_gpu_of_the_replica():
    deepseek = deployment("deepseek-v3", precision="fp8")
    routed = 671e9 * deepseek.costs.routed_fraction
    expected = (671e9 - routed) / 1 + routed / 8
    assert weight_bytes_per_gpu(deepseek, Parallelism(1, 8, 8)) == pytest.approx(expected)


def test_kv_per_rank_matches_the_sizing_figures():
    # DESIGN.md: Llama 3.3 70B at TP 8 holds 40 KiB per token per rank.
    assert kv_bytes_per_rank(MODEL_CATALOG["llama-3.3-70b"], 8, 1000) == 1000 * 40 * 1024
    # MLA's latent is not split: 61 x (512 + 64) x 2 bytes per token on every rank.
    assert kv_bytes_per_rank(MODEL_CATALOG["deepseek-v3"], 8, 1000) == 1000 * 61 * 576 * 2


@pytest.mark.parametrize("tokens, expected", [(1, 8 / 256), (2, 1 - (1 - 8 / 256) ** 2)])
def test_a_batch_touches_the_experts_its_tokens_route_to(tokens, expected):
    costs = model_costs(MODEL_CATALOG["deepseek-v3"])
    assert touched_expert_fraction(costs, tokens) == pytest.approx(expected)
    assert touched_expert_fraction(costs, 4096) == pytest.approx(1.0)


def test_a_small_decode_batch_is_bound_by_reading_the_weights():
    llama = deployment("llama-3.1-8b")
    step = decode_step_seconds(llama, Parallelism(1), batch=1, context=1000)
    reads = 8.03e9 * 2 / (3.35e12 * ENGINE_EFFICIENCY["vllm"].decode_bandwidth)
    assert reads < step < reads * 1.5
    # Eight times the batch reads eight times the (small) KV, not the weights again.
    assert decode_step_seconds(llama, Parallelism(1), batch=8, context=1000) < 1.2 * step


def test_a_long_prefill_is_bound_by_compute_and_shrinks_with_tensor_parallel():
    llama = deployment("llama-3.3-70b")
    one, eight = (prefill_seconds(llama, Parallelism(tp), 8192) for tp in (1, 8))
    assert 5 < one / eight < 8  # less than 8: the all-reduces and the fixed costs stay


def test_batched_prompts_take_less_time_each_than_one_by_one():
    llama = deployment("llama-3.3-70b")
    layout = Parallelism(8)
    assert prefill_seconds(llama, layout, 256, prompts=16) < 16 * prefill_seconds(
        llama, layout, 256
    )


def test_the_kv_transfer_moves_every_decode_ranks_share_over_its_own_links():
    # LMCache sends after the forward pass, so the whole transfer counts (not hidden behind
    # the prefill): 8 ranks x 40 KiB a token x 8192 tokens over 8 links at a fifth of 50 GB/s.
    llama = deployment("llama-3.3-70b")
    layout = Parallelism(8)
    moved = 8 * 8192 * 40 * 1024
    expected = moved / (8 * 50e9 * KV_TRANSFER_BANDWIDTH)
    assert kv_transfer_seconds(llama, layout, layout, 8192) == pytest.approx(expected)


def test_attention_runs_at_the_bf16_peak_whatever_the_weights_precision():
    # At 128k tokens attention dominates a prefill: FP4 weights on B200 shorten the linear
    # layers' time again, not attention's, so FP4 gains less on long prompts than on short.
    fp8 = deployment("llama-3.3-70b", "ml.p6-b200.48xlarge", "fp8")
    fp4 = deployment("llama-3.3-70b", "ml.p6-b200.48xlarge", "fp4")
    layout = Parallelism(8)
    long_fp8, long_fp4 = (prefill_seconds(d, layout, 131_072) for d in (fp8, fp4))
    assert long_fp4 > 0.8 * long_fp8
    short_fp8, short_fp4 = (prefill_seconds(d, layout, 2048) for d in (fp8, fp4))
    assert short_fp4 < short_fp8
    assert long_fp8 / long_fp4 < short_fp8 / short_fp4


def test_w4a16_computes_at_the_bf16_peak_but_reads_four_bit_weights():
    bf16 = deployment("llama-3.3-70b", precision="bf16")
    awq = deployment("llama-3.3-70b", precision="w4a16")
    layout = Parallelism(4)
    # A long prefill is compute-bound: no faster than BF16.
    assert prefill_seconds(awq, layout, 8192) >= prefill_seconds(bf16, layout, 8192)
    # A small decode batch reads a quarter of the weights.
    assert decode_step_seconds(awq, layout, 1, 1000) < 0.5 * decode_step_seconds(
        bf16, layout, 1, 1000
    )


def test_int8_on_b300_is_far_slower_than_its_fp8():
    fp8 = deployment("llama-3.3-70b", "ml.p6-b300.48xlarge", "fp8")
    int8 = deployment("llama-3.3-70b", "ml.p6-b300.48xlarge", "int8")
    layout = Parallelism(8)
    assert prefill_seconds(int8, layout, 8192) > 5 * prefill_seconds(fp8, layout, 8192)


def test_a_prompt_chunk_in_a_decode_step_costs_its_share_of_the_prompts_compute():
    llama = deployment("llama-3.3-70b")
    layout = Parallelism(8)
    half, whole = (chunk_seconds(llama, layout, tokens, 8192) for tokens in (4096, 8192))
    assert whole == pytest.approx(2 * half, rel=0.05)
    assert chunk_seconds(llama, layout, 0, 8192) == 0


def test_activations_grow_with_the_token_budget_and_vllm_sizes_the_sampler_for_max_num_seqs():
    llama = deployment("llama-3.3-70b")
    few, many = (activation_bytes_per_gpu(llama, Parallelism(8), seqs) for seqs in (32, 1024))
    assert 0.2e9 < few < 1e9
    # 128,256 FP32 logits and probabilities for each of 992 more requests.
    assert many - few == pytest.approx(992 * 128_256 * 8)
