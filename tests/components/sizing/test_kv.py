from typing import Any

import pytest

from components.cluster.instance_types import DPD_INSTANCE_TYPES
from components.core.units import GIB, KIB, MIB
from components.endpoint.spec import EndpointSpec
from components.model.catalog import MODEL_CATALOG
from components.sizing.kv import (
    CUDA_OVERHEAD_BYTES,
    chunked_tokens,
    decoder_hbm,
    kv_bytes_per_token_per_rank,
    recommended_pd_buffer,
    size_endpoint,
    transfer_bytes_per_rank,
    transfer_seconds,
    transfers_in_flight,
)
from tests.components.endpoint.test_manifest import MINIMAL

LLAMA_70B = MODEL_CATALOG["llama-3.3-70b"]
GPT_OSS = MODEL_CATALOG["gpt-oss-120b"]
P5 = DPD_INSTANCE_TYPES["ml.p5.48xlarge"]

# KV bytes per token for the whole model, by hand from DESIGN.md's architecture table:
# 2 (K and V) x layers x kv_heads x head_dim x 2 bytes (bf16).
WHOLE_MODEL_BYTES_PER_TOKEN = {
    "llama-3.1-8b": 2 * 32 * 8 * 128 * 2,  # 131,072
    "llama-3.1-70b": 2 * 80 * 8 * 128 * 2,  # 327,680
    "llama-3.3-70b": 2 * 80 * 8 * 128 * 2,  # 327,680
    "llama-3.1-405b": 2 * 126 * 8 * 128 * 2,  # 516,096
    "qwen2.5-72b": 2 * 80 * 8 * 128 * 2,  # 327,680
    "qwen3-32b": 2 * 64 * 8 * 128 * 2,  # 262,144
    "mixtral-8x7b": 2 * 32 * 8 * 128 * 2,  # 131,072
    # GPT-OSS: the 18 full-attention layers of 36; the sliding ones stop at their window.
    "gpt-oss-120b": 2 * 18 * 8 * 64 * 2,  # 36,864
}


def spec(**changes: Any) -> EndpointSpec:
    return EndpointSpec.model_validate({**MINIMAL, **changes})


# The source document's figures, for Llama 3.3 70B at TP 8.


def test_llama_3_3_70b_at_tp_8_stores_40_kib_per_token_per_rank():
    assert kv_bytes_per_token_per_rank(LLAMA_70B, 8) == 40 * KIB


def test_6035_tokens_take_24_chunks_which_is_0_2344_gib():
    assert chunked_tokens(6035) == 24 * 256 == 6144
    size = transfer_bytes_per_rank(LLAMA_70B, 8, 6035)
    assert size == 6144 * 40 * KIB
    assert size / GIB == 0.234375
    assert round(size / GIB, 4) == 0.2344


def test_8_gib_holds_about_35_transfers_of_6000_tokens_unchunked_and_34_whole_chunked():
    # The source's arithmetic, token for token: 8 GiB / (6,000 x 40 KiB) = 34.95.
    assert round(8 * GIB / (6000 * 40 * KIB)) == 35
    # LMCache rounds 6,000 tokens up to 6,144, so 34 whole transfers fit at once.
    assert transfers_in_flight(8 * GIB, transfer_bytes_per_rank(LLAMA_70B, 8, 6000)) == 34


# Every catalog model, at every tensor-parallel size.


@pytest.mark.parametrize("tp", [1, 2, 4, 8])
@pytest.mark.parametrize("catalog_id, whole_model", WHOLE_MODEL_BYTES_PER_TOKEN.items())
def test_grouped_query_kv_per_rank_is_the_whole_model_over_min_tp_and_kv_heads(
    catalog_id, whole_model, tp
):
    per_rank = whole_model // min(tp, 8)  # every one of these models has 8 KV heads
    assert kv_bytes_per_token_per_rank(MODEL_CATALOG[catalog_id], tp) == per_rank


@pytest.mark.parametrize("tp", [1, 2, 4, 8])
def test_deepseek_v3_latent_kv_is_the_same_on_every_rank(tp):
    # 61 layers x (kv_lora_rank 512 + qk_rope_head_dim 64) x 2 bytes, not split by TP.
    assert kv_bytes_per_token_per_rank(MODEL_CATALOG["deepseek-v3"], tp) == 61 * 576 * 2 == 70_272


def test_tp_beyond_the_kv_heads_replicates_them():
    two_heads = LLAMA_70B.model_copy(update={"kv_heads": 2})
    assert kv_bytes_per_token_per_rank(two_heads, 8) == kv_bytes_per_token_per_rank(two_heads, 2)


def test_sliding_layers_hold_at_most_their_window():
    per_layer_per_rank = 2 * 1 * 64 * 2  # one KV head per rank at TP 8
    full, sliding = 18 * per_layer_per_rank, 18 * per_layer_per_rank
    # A 6,000-token transfer moves 6,144 tokens on the full layers, 128 on the sliding ones.
    assert transfer_bytes_per_rank(GPT_OSS, 8, 6000) == full * 6144 + sliding * 128
    # One chunk is already wider than the window.
    assert transfer_bytes_per_rank(GPT_OSS, 8, 100) == full * 256 + sliding * 128


@pytest.mark.parametrize("tokens, chunked", [(1, 256), (256, 256), (257, 512), (0, 256)])
def test_transfers_occupy_whole_256_token_chunks_at_least_one(tokens, chunked):
    assert chunked_tokens(tokens) == chunked


def test_a_transfer_takes_every_ranks_share_over_the_instance_efa():
    # 160 MiB per rank x 8 ranks = 1,342,177,280 bytes over 3,200 Gbps.
    assert transfer_seconds(160 * MIB, 8, 3_200) == 160 * MIB * 8 * 8 / 3_200e9
    assert transfer_seconds(160 * MIB, 8, 6_400) == transfer_seconds(160 * MIB, 8, 3_200) / 2


def test_an_aggregated_endpoint_on_a_type_without_efa_sizes_with_no_transfer_time():
    sizing = size_endpoint(
        spec(instanceType="ml.g6e.xlarge", tensorParallelSize=1, serving={"gpus": 1}),
        MODEL_CATALOG["llama-3.1-8b"],
    )
    assert sizing.routing_threshold.seconds is None
    assert sizing.max_model_len.seconds is None


def test_the_decoder_hbm_budget_on_p5_at_0_75_with_8_gib():
    hbm = decoder_hbm(LLAMA_70B, 8, P5, 0.75, 8 * GIB)
    assert hbm.per_gpu_bytes == 81_559 * MIB
    assert hbm.weights_bytes_per_gpu == 70.6e9 * 2 / 8 == 17_650_000_000
    assert hbm.utilization_bytes == int(0.75 * 81_559 * MIB)
    assert hbm.kv_pool_bytes_per_gpu == hbm.utilization_bytes - 17_650_000_000
    assert hbm.overhead_bytes == CUDA_OVERHEAD_BYTES
    assert hbm.headroom_bytes == 81_559 * MIB - hbm.utilization_bytes - 8 * GIB - 2 * GIB
    assert hbm.pd_buffer_room_bytes == hbm.headroom_bytes + 8 * GIB


def test_the_source_advice_to_raise_the_buffer_fits_16_gib_but_not_32_at_0_75():
    assert decoder_hbm(LLAMA_70B, 8, P5, 0.75, 16 * GIB).headroom_bytes > 0
    assert decoder_hbm(LLAMA_70B, 8, P5, 0.75, 32 * GIB).headroom_bytes < 0


def test_the_recommendation_holds_the_busy_load_and_one_long_prompt_at_once():
    # 32 x 160 MiB + 640 MiB = 5.625 GiB, rounded up to whole GiB.
    assert recommended_pd_buffer(32, 160 * MIB, 640 * MIB, 20 * GIB) == 6 * GIB
    assert recommended_pd_buffer(32, 160 * MIB, 640 * MIB, 6 * GIB) == 6 * GIB
    assert recommended_pd_buffer(32, 160 * MIB, 640 * MIB, 6 * GIB - 1) is None


def test_the_dev_endpoint_sizes_as_the_documented_example():
    sizing = size_endpoint(spec(), LLAMA_70B)
    assert sizing.kv_bytes_per_token_per_rank == 40 * KIB
    assert sizing.pd_buffer_bytes == 8 * GIB
    threshold = sizing.routing_threshold
    assert (threshold.tokens, threshold.bytes_per_rank, threshold.in_flight) == (
        4096,
        160 * MIB,
        51,
    )
    longest = sizing.max_model_len
    assert (longest.tokens, longest.bytes_per_rank, longest.in_flight) == (16384, 640 * MIB, 12)
    assert sizing.typical_input is None
    assert sizing.typical_transfer == threshold
    assert sizing.concurrent_transfers == 32
    assert sizing.recommended_pd_buffer_bytes == 6 * GIB


def test_the_decoder_uses_its_own_utilization_and_max_num_seqs_when_set():
    sizing = size_endpoint(spec(decode={"gpuMemoryUtilization": 0.6, "maxNumSeqs": 48}), LLAMA_70B)
    assert sizing.hbm.gpu_memory_utilization == 0.6
    assert sizing.decode_max_num_seqs == 48
    assert sizing.concurrent_transfers == 48


def test_a_workload_sizes_its_typical_input_and_its_concurrency():
    sizing = size_endpoint(
        spec(workload={"typicalInputTokens": 6000, "concurrency": 40}), LLAMA_70B
    )
    assert sizing.typical_input.bytes_per_rank == 6144 * 40 * KIB
    assert sizing.typical_transfer == sizing.typical_input
    assert sizing.concurrent_transfers == 40
    # 40 x 240 MiB + 640 MiB = 10 GiB.
    assert sizing.recommended_pd_buffer_bytes == 10 * GIB
