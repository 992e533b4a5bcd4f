"""The forward model's behaviour: what load, layout and engine do to TTFT, TPOT and
throughput, and the layouts it refuses."""

import math

import pytest

from components.cluster.instance_types import DPD_INSTANCE_TYPES
from components.performance.predict import predict
from components.performance.scenario import Scenario, ScenarioError


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


def test_one_client_waits_for_no_one():
    alone = predict(scenario(workload=workload(concurrency=1)))
    assert alone.queue_ms == 0
    assert alone.ttft_ms == pytest.approx(alone.prefill_ms + alone.tpot_ms, rel=0.05)
    # And sends its next request when the last one ends.
    cycle_s = (alone.ttft_ms + 499 * alone.tpot_ms) / 1000
    assert alone.requests_per_second == pytest.approx(1 / cycle_s, rel=1e-3)


def test_clients_beyond_what_the_layout_serves_wait_by_littles_law():
    crowd = predict(scenario(workload=workload(concurrency=5000)))
    assert crowd.saturated
    cycle_s = (crowd.ttft_ms + 499 * crowd.tpot_ms) / 1000
    assert crowd.requests_per_second * cycle_s == pytest.approx(5000, rel=0.02)


def test_an_open_loop_beyond_capacity_is_reported_at_the_limit():
    flooded = predict(scenario(workload=workload(requestsPerSecond=1000)))
    assert flooded.saturated
    assert flooded.requests_per_second == pytest.approx(flooded.max_requests_per_second)
    assert math.isfinite(flooded.ttft_ms)


def test_speculative_decoding_shortens_the_time_per_token():
    plain = predict(scenario(workload=workload(concurrency=1)))
    drafted = predict(scenario(workload=workload(concurrency=1), speculativeDecoding="mtp3"))
    assert drafted.tpot_ms < plain.tpot_ms / 1.5


def test_tensorrt_llm_keeps_fp8_checkpoints_kv_in_fp8():
    vllm = predict(scenario(engine="vllm"))
    trtllm = predict(scenario(engine="trtllm"))
    assert trtllm.roles[0].max_batch > 1.9 * vllm.roles[0].max_batch


def test_without_a_tensor_parallel_size_the_fewest_gpus_that_hold_it_serve():
    assert predict(scenario(serving={}, precision="bf16")).roles[0].tensor_parallel == 2
    assert predict(scenario(serving={})).roles[0].tensor_parallel == 1


def test_data_parallel_attention_replica_uses_tp_times_dp_gpus():
    moe = scenario(
        model={"name": "deepseek-v3"},
        instanceType="ml.p5en.48xlarge",
        serving={"tensorParallel": 1, "dataParallelAttention": 8, "expertParallel": 8},
    )
    role = predict(moe).roles[0]
    assert (role.gpus, role.expert_parallel, role.data_parallel_attention) == (8, 8, 8)


def test_a_layout_that_cannot_hold_the_weights_is_refused_naming_its_key():
    with pytest.raises(
        ScenarioError, match=r"^scenario\.decode\.tensorParallel: 1 x dataParallelAttention 1"
    ):
        predict(
            disaggregated(decode=1, precision="bf16").model_copy(
                update={"decode": disaggregated().decode.model_copy(update={"tensor_parallel": 1})}
            )
        )


def test_a_layout_that_holds_the_weights_but_not_one_requests_kv_is_refused():
    # Llama 3.1 405B in FP8 on 8 H100s leaves about 29 GB per GPU: a million-token prompt's KV
    # (about 63 GB per rank) does not fit.
    long_prompt = scenario(
        model={"name": "llama-3.1-405b"},
        serving={"tensorParallel": 8},
        workload={"typicalInputTokens": 1_000_000, "outputTokens": 10},
    )
    with pytest.raises(ScenarioError, match=r"^scenario\.serving\.tensorParallel: .*KV for one"):
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
    "model, precision", [("qwen3-32b", "bf16"), ("deepseek-r1", "fp8"), ("gpt-oss-120b", "fp4")]
)
@pytest.mark.parametrize("layout", LAYOUTS)
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
                **LAYOUTS[layout],
                "workload": {"typicalInputTokens": 4096, "outputTokens": 512, "concurrency": 64},
            }
        )
    )
    for figure in (found.ttft_ms, found.tpot_ms, found.output_tokens_per_second):
        assert math.isfinite(figure) and figure > 0
