"""What one replica reads, computes and moves per phase."""

import pytest

from components.model.catalog import MODEL_CATALOG
from components.performance.efficiency import ENGINE_EFFICIENCY, KV_TRANSFER_LATENCY_S
from components.performance.hardware import machine
from components.performance.model_costs import model_costs
from components.performance.phases import (
    Deployment,
    Parallelism,
    decode_step_seconds,
    kv_bytes_per_rank,
    kv_transfer_seconds,
    prefill_seconds,
    touched_expert_fraction,
    weight_bytes_per_gpu,
)


def deployment(catalog_id, instance="ml.p5.48xlarge", precision="bf16", bytes_per=2.0):
    return Deployment.of(
        MODEL_CATALOG[catalog_id],
        machine(instance),
        precision,
        ENGINE_EFFICIENCY["vllm"],
        bytes_per,
    )


def test_dense_weights_split_over_tensor_parallel_ranks():
    llama = deployment("llama-3.3-70b")
    assert weight_bytes_per_gpu(llama, Parallelism(4)) == pytest.approx(70.6e9 * 2 / 4)
    # Data-parallel attention groups each hold their own copy.
    assert weight_bytes_per_gpu(llama, Parallelism(4, 2)) == pytest.approx(70.6e9 * 2 / 4)


def test_routed_experts_spread_over_every_gpu_of_the_replica():
    deepseek = deployment("deepseek-v3", precision="fp8", bytes_per=1.0)
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


def test_the_kv_transfer_hides_behind_the_prefill_but_for_its_last_layers():
    llama = deployment("llama-3.3-70b")
    layout = Parallelism(8)
    whole, visible = kv_transfer_seconds(llama, layout, layout, 8192, prefill_seconds=10.0)
    assert visible == pytest.approx(whole / 80 + KV_TRANSFER_LATENCY_S)
    whole, visible = kv_transfer_seconds(llama, layout, layout, 8192, prefill_seconds=0.0)
    assert visible == pytest.approx(whole + KV_TRANSFER_LATENCY_S)
