"""The forward model's behaviour: what load, layout and engine do to TTFT, TPOT and
throughput and their percentiles, and the layouts it refuses."""

import itertools
import math

import pytest

from components.cluster.instance_types import DPD_INSTANCE_TYPES
from planner.predict import predict
from planner.scenario import Scenario, ScenarioError


def scenario(**changes):
    document = {
        "model": {"name": "llama-3.3-70b"},
        "instanceType": "ml.p5.48xlarge",
        "precision": "fp8",
        "serving": {"tensorParallel": 4},
        "workload": {"typicalInputTokens": 2000, "outputTokens": 500, "requestsPerSecond": 1},
    }
    document.update(changes)
    return Scenario.model_validate(document)


def disaggregated(prefill=1, decode=1, **changes):
    return scenario(
        serving=None,
        prefill={"replicas": prefill, "tensorParallel": 4},
        decode={"replicas": decode, "tensorParallel": 4},
        **changes,
    )


def workload(**figures):
    return {"typicalInputTokens": 2000, "outputTokens": 500, **figures}


def test_more_load_means_longer_waits_and_slower_tokens():
    light, heavy = (predict(scenario(workload=workload(requestsPerSecond=r))) for r in (0.5, 3))
    assert light.ttft_ms < heavy.ttft_ms
    assert light.tpot_ms < heavy.tpot_ms
    assert heavy.output_tokens_per_second == pytest.approx(3 * 500)


def test_more_replicas_share_the_load():
    one = predict(scenario(workload=workload(requestsPerSecond=3)))
    two = predict(
        scenario(
            serving={"replicas": 2, "tensorParallel": 4}, workload=workload(requestsPerSecond=3)
        )
    )
    assert two.ttft_ms < one.ttft_ms and two.tpot_ms < one.tpot_ms
    assert two.gpus == 8 and two.instances == 1


def test_disaggregated_decode_does_not_wait_for_prefills():
    aggregated = predict(scenario(workload=workload(requestsPerSecond=2)))
    split = predict(disaggregated(workload=workload(requestsPerSecond=2)))
    assert split.tpot_ms < aggregated.tpot_ms
    assert split.kv_transfer_ms > 0 and aggregated.kv_transfer_ms == 0
    # More prefill replicas shorten the prefill queue, not the decode steps.
    more = predict(disaggregated(prefill=2, workload=workload(requestsPerSecond=2)))
    assert more.ttft_ms < split.ttft_ms
    assert more.tpot_ms == pytest.approx(split.tpot_ms)


def test_long_prompts_colocated_slow_the_decodes_they_ride_with_and_spike_the_tail():
    long = workload(typicalInputTokens=16000, requestsPerSecond=0.6)
    aggregated = predict(scenario(workload=long))
    split = predict(disaggregated(workload=long))
    # Colocated, a step that carries a prompt's chunk takes the chunk's compute too: the mean
    # time per token grows, and the tail of the inter-token latency is such a step.
    assert aggregated.tpot_ms > 1.3 * split.tpot_ms
    assert aggregated.itl_at(99) > 5 * aggregated.itl_at(50)
    # Disaggregated decoders only decode: their tail is their median.
    assert split.itl_at(99) == pytest.approx(split.itl_at(50))
    short = predict(scenario(workload=workload(typicalInputTokens=200, requestsPerSecond=0.6)))
    assert short.tpot_ms < aggregated.tpot_ms


def test_percentiles_are_ordered_around_the_mean():
    found = predict(scenario(workload=workload(requestsPerSecond=3)))
    p50, p90, p95, p99 = found.ttft_percentiles_ms
    assert p50 <= p90 <= p95 <= p99
    assert p50 <= found.ttft_ms <= p99
    # The JSON names each figure for what it is: the mean, the median (p50) and the tails.
    assert found.to_json()["ttftMs"] == {
        "mean": round(found.ttft_ms, 1),
        **{f"p{p}": round(found.ttft_at(p), 1) for p in (50, 90, 95, 99)},
    }


def test_one_client_waits_for_no_one():
    alone = predict(scenario(workload=workload(concurrency=1)))
    assert alone.queue_ms == pytest.approx(0, abs=1e-6)
    assert alone.ttft_ms == pytest.approx(alone.prefill_ms, rel=0.01)
    # And sends its next request when the last one ends.
    cycle_s = (alone.ttft_ms + 499 * alone.tpot_ms) / 1000
    assert alone.requests_per_second == pytest.approx(1 / cycle_s, rel=1e-3)


def test_a_closed_loop_starts_with_a_wave_of_every_clients_prompt():
    # vllm bench serve --max-concurrency 64 --num-prompts 64: one wave, each prompt queued
    # behind those sent with it.
    one_wave = predict(scenario(workload=workload(concurrency=64, requests=64)))
    ten_rounds = predict(scenario(workload=workload(concurrency=64)))
    settled = predict(scenario(workload=workload(concurrency=64, steadyState=True)))
    assert one_wave.ttft_ms > 3 * settled.ttft_ms
    assert settled.ttft_ms < ten_rounds.ttft_ms < one_wave.ttft_ms
    # After the wave, 64 clients keep a queue in front of the steps that one client never
    # meets, and the wave's tail leaves the mean far above the median.
    alone = predict(scenario(workload=workload(concurrency=1)))
    assert settled.ttft_ms > 1.1 * alone.ttft_ms
    assert ten_rounds.ttft_ms > 1.3 * ten_rounds.ttft_at(50)


def test_sglang_runs_waiting_prompts_first_so_every_round_is_a_wave():
    vllm = predict(scenario(workload=workload(concurrency=64, steadyState=True)))
    sglang = predict(scenario(engine="sglang", workload=workload(concurrency=64, steadyState=True)))
    assert sglang.ttft_ms > 2 * vllm.ttft_ms


def test_clients_beyond_what_the_layout_serves_wait_by_littles_law():
    crowd = predict(scenario(workload=workload(concurrency=5000, steadyState=True)))
    assert crowd.saturated and math.isfinite(crowd.ttft_ms)
    cycle_s = (crowd.ttft_ms + 499 * crowd.tpot_ms) / 1000
    assert crowd.requests_per_second * cycle_s == pytest.approx(5000, rel=0.05)


def test_ttft_grows_without_a_jump_as_the_load_nears_capacity_and_has_none_past_it():
    capacity = predict(scenario()).max_requests_per_second
    figures = [
        predict(scenario(workload=workload(requestsPerSecond=capacity * share))).ttft_ms
        for share in (0.5, 0.7, 0.8, 0.9, 0.95)
    ]
    assert figures == sorted(figures)
    assert all(b / a < 1.6 for a, b in itertools.pairwise(figures))
    flooded = predict(scenario(workload=workload(requestsPerSecond=capacity * 1.5)))
    assert flooded.saturated and math.isinf(flooded.ttft_ms)
    assert flooded.requests_per_second == pytest.approx(flooded.max_requests_per_second)
    assert set(flooded.to_json()["ttftMs"].values()) == {None}


def test_a_run_of_a_known_length_past_capacity_waits_for_half_its_backlog():
    capacity = predict(scenario()).max_requests_per_second
    run = predict(scenario(workload=workload(requestsPerSecond=2 * capacity, requests=1000)))
    # 1000 requests at twice the capacity leave 500 queued at the end: 250 on average.
    assert run.saturated
    assert run.ttft_ms / 1000 == pytest.approx(250 / capacity, rel=0.1)


def test_speculative_decoding_shortens_the_time_per_token():
    plain = predict(scenario(workload=workload(concurrency=1)))
    drafted = predict(scenario(workload=workload(concurrency=1), speculativeDecoding="mtp3"))
    assert drafted.tpot_ms < plain.tpot_ms / 1.5


def test_tensorrt_llm_keeps_fp8_kv_and_admits_for_the_whole_sequence():
    vllm = predict(scenario(engine="vllm"))
    trtllm = predict(scenario(engine="trtllm"))
    # Half the bytes a token, but each request holds room for its every output token (2,500)
    # where paged KV holds half its output on average (2,250).
    ratio = trtllm.roles[0].max_batch / vllm.roles[0].max_batch
    assert ratio == pytest.approx(2 * 2250 / 2500, rel=0.03)


def test_lmcache_holds_the_prefiller_while_it_sends_and_nixl_does_not():
    sent = predict(disaggregated(workload=workload(requestsPerSecond=1)))
    pulled = predict(disaggregated(kvConnector="nixl", workload=workload(requestsPerSecond=1)))
    # Either way TTFT waits for the whole transfer: LMCache stores after the forward pass.
    assert sent.kv_transfer_ms > 0 and pulled.kv_transfer_ms > 0
    assert pulled.max_requests_per_second >= sent.max_requests_per_second


def test_without_a_tensor_parallel_size_the_fewest_gpus_that_hold_it_serve():
    # 141 GB of BF16 weights: at 0.75 of 80 GB, two H100s hold no KV beside them.
    bf16 = scenario(serving={}, precision="bf16", gpuMemoryUtilization=0.75)
    assert predict(bf16).roles[0].tensor_parallel == 4
    fp8 = scenario(serving={}, gpuMemoryUtilization=0.75)
    assert predict(fp8).roles[0].tensor_parallel == 2
    # At the engines' own 0.9, one H100 holds the 71 GB of FP8 weights and a few requests.
    assert predict(scenario(serving={})).roles[0].tensor_parallel == 1


def test_data_parallel_attention_replica_uses_tp_times_dp_gpus():
    moe = scenario(
        model={"name": "deepseek-v3"},
        instanceType="ml.p5en.48xlarge",
        serving={"tensorParallel": 1, "dataParallelAttention": 8, "expertParallel": 8},
        gpuMemoryUtilization=0.9,
    )
    role = predict(moe).roles[0]
    assert (role.gpus, role.expert_parallel, role.data_parallel_attention) == (8, 8, 8)


@pytest.mark.parametrize(
    "changes, says",
    [
        # Llama 3.3 70B in BF16 on one H100.
        ({"precision": "bf16", "serving": {"tensorParallel": 1}}, r"serving\.tensorParallel: 1 x"),
        ({"serving": {"tensorParallel": 3}}, r"serving\.tensorParallel: 3 does not divide .* 64"),
        ({"serving": {"tensorParallel": 64}}, r"serving\.tensorParallel: 64 spans more than two"),
        (
            # One L4 per node and no EFA between them: nothing carries the all-reduces.
            {
                "model": {"name": "llama-3.1-8b"},
                "instanceType": "ml.g6.xlarge",
                "serving": {"tensorParallel": 2},
            },
            r"serving\.tensorParallel: 2 spreads a replica's 2 GPUs over 2 ml\.g6\.xlarge nodes, "
            "which have no EFA",
        ),
        (
            {"serving": {"tensorParallel": 8, "replicas": 1_000_000_000}},
            r"serving\.replicas: 1,000,000,000 x 8 GPUs is more than",
        ),
        (
            {"serving": {"tensorParallel": 1, "dataParallelAttention": 1000}},
            r"serving\.dataParallelAttention: 1000 on a dense model",
        ),
        (
            {"workload": workload(typicalInputTokens=10**6)},
            r"workload\.typicalInputTokens: 1,000,000 input .* context of 131,072",
        ),
        (
            {"model": {"name": "llama-3.3-70b", "parameters": 1e30}},
            r"model\.parameters: 1e\+30 parameters",
        ),
    ],
    ids=[
        "weights",
        "tp3",
        "tp64",
        "tp2-without-efa",
        "8e9-gpus",
        "dp1000-dense",
        "1e6-prompt",
        "1e30-parameters",
    ],
)
def test_a_layout_vllm_or_physics_refuses_is_refused_naming_its_key(changes, says):
    with pytest.raises(ScenarioError, match=rf"^scenario\.{says}"):
        predict(scenario(**changes))


def test_a_request_whose_kv_does_not_fit_beside_the_weights_is_blamed_on_the_workload():
    # Llama 3.1 405B in FP8 on 8 H100s leaves about 13 GB per GPU at 0.75: a 120k-token
    # request's KV (about 7.7 GB per rank) fits, but the prediction needs one request at least.
    long_prompt = scenario(
        model={"name": "llama-3.1-405b"},
        serving={"tensorParallel": 8},
        workload={"typicalInputTokens": 126_000, "outputTokens": 10},
        gpuMemoryUtilization=0.65,
    )
    with pytest.raises(ScenarioError, match=r"^scenario\.workload\.typicalInputTokens: one req"):
        predict(long_prompt)


def test_expert_parallel_beyond_the_replica_is_refused():
    with pytest.raises(ScenarioError, match=r"^scenario\.serving\.expertParallel: 16 is more"):
        predict(
            scenario(
                model={"name": "mixtral-8x7b"}, serving={"tensorParallel": 8, "expertParallel": 16}
            )
        )


def test_a_workload_without_its_token_counts_is_refused_naming_them():
    with pytest.raises(ScenarioError, match=r"^scenario\.workload\.outputTokens: required"):
        predict(scenario(workload={"typicalInputTokens": 100}))


# Two nodes a replica, so that DeepSeek's 671 GB of FP8 weights fit even on H100s.
LAYOUTS = {
    "aggregated": {"serving": {"tensorParallel": 16}},
    "disaggregated": {"prefill": {"tensorParallel": 16}, "decode": {"tensorParallel": 16}},
    "wide-ep": {
        "prefill": {"tensorParallel": 8, "dataParallelAttention": 2, "expertParallel": 16},
        "decode": {"tensorParallel": 1, "dataParallelAttention": 16, "expertParallel": True},
    },
}


@pytest.mark.parametrize("instance_type", DPD_INSTANCE_TYPES)
@pytest.mark.parametrize("engine", ["vllm", "sglang", "trtllm"])
@pytest.mark.parametrize(
    "model, precision, layout",
    [
        (model, precision, layout)
        for model, precision in (("qwen3-32b", "bf16"), ("deepseek-r1", "fp8"))
        for layout in LAYOUTS
        # Data-parallel attention is for MoE layers only.
        if layout != "wide-ep" or model != "qwen3-32b"
    ]
    + [("gpt-oss-120b", "fp4", layout) for layout in LAYOUTS],
)
def test_every_instance_type_engine_precision_and_layout_gives_a_finite_prediction(
    instance_type, engine, model, precision, layout
):
    found = predict(
        Scenario.model_validate(
            {
                "model": {"name": model},
                "precision": precision,
                "instanceType": instance_type,
                "engine": engine,
                "gpuMemoryUtilization": 0.9,
                **LAYOUTS[layout],
                "workload": {"typicalInputTokens": 4096, "outputTokens": 512, "concurrency": 64},
            }
        )
    )
    for figure in (found.ttft_ms, found.tpot_ms, found.output_tokens_per_second):
        assert math.isfinite(figure) and figure > 0
