from typing import Any

import pytest

from components.endpoint.spec import EndpointSpec
from components.sizing.checks import review_sizing
from components.sizing.endpoint_architecture import endpoint_architecture, served_spec
from tests.components.endpoint.items import endpoint_item, endpoint_problems, endpoint_spec
from tests.components.endpoint.test_manifest import MINIMAL
from tests.support import problem_for

FOUR_KV_HEADS = {"layers": 80, "kvHeads": 4, "headDim": 128, "parameters": 70.6e9}


def review(**changes: Any):
    spec = EndpointSpec.model_validate({**MINIMAL, **changes})
    return review_sizing(spec, endpoint_architecture(spec))


def codes(**changes: Any) -> dict[str, list[tuple[str, str]]]:
    found: dict[str, list[tuple[str, str]]] = {}
    for f in review(**changes).findings:
        found.setdefault(f.code, []).append((f.level, f.field))
    return found


def message(code: str, **changes: Any) -> str:
    (found,) = [f for f in review(**changes).findings if f.code == code]
    return found.message


def test_the_documented_example_sizes_without_findings():
    assert review().findings == []


@pytest.mark.parametrize(
    "changes, code, level, field",
    [
        ({"pdBufferSize": "32GiB"}, "hbm-overcommitted", "error", "pdBufferSize"),
        (
            {"gpuMemoryUtilization": 0.2},
            "weights-exceed-utilization",
            "error",
            "gpuMemoryUtilization",
        ),
        (
            {"decode": {"gpuMemoryUtilization": 0.2}},
            "weights-exceed-utilization",
            "error",
            "decode.gpuMemoryUtilization",
        ),
        ({"architecture": "llama-3.1-405b"}, "weights-exceed-utilization", "error", "instanceType"),
        (
            {"maxModelLen": 131072, "pdBufferSize": "4GiB"},
            "max-model-len-exceeds-pd-buffer",
            "error",
            "pdBufferSize",
        ),
        ({"pdBufferSize": "4GiB"}, "pd-buffer-below-max-num-seqs", "warning", "pdBufferSize"),
        (
            {"workload": {"typicalInputTokens": 12000}},
            "pd-buffer-below-max-num-seqs",
            "warning",
            "pdBufferSize",
        ),
        (
            {"decode": {"maxNumSeqs": 64}},
            "pd-buffer-below-max-num-seqs",
            "warning",
            "pdBufferSize",
        ),
        ({"architecture": FOUR_KV_HEADS}, "kv-replicated", "warning", "tensorParallelSize"),
        (
            {"architecture": {**FOUR_KV_HEADS, "attentionHeads": 60}},
            "heads-not-divisible",
            "error",
            "tensorParallelSize",
        ),
        ({"modelName": "Qwen3-32B"}, "model-under-70b", "warning", "modelName"),
        ({"architecture": "llama-3.1-8b"}, "model-under-70b", "warning", "architecture"),
        ({"modelName": "Mixtral-8x7B-Instruct"}, "moe-model", "warning", "modelName"),
        ({"architecture": "deepseek-v3"}, "moe-model", "warning", "architecture"),
        (
            {"workload": {"typicalInputTokens": 4000}},
            "short-inputs",
            "warning",
            "workload.typicalInputTokens",
        ),
        (
            {"workload": {"requestsPerSecond": 2}},
            "low-request-rate",
            "warning",
            "workload.requestsPerSecond",
        ),
        ({"workload": {"outputTokens": 256}}, "short-outputs", "warning", "workload.outputTokens"),
        (
            {"workload": {"concurrency": 65}},
            "concurrency-beyond-validated",
            "warning",
            "workload.concurrency",
        ),
        (
            {"workload": {"typicalInputTokens": 4095}},
            "inputs-below-routing-threshold",
            "warning",
            "workload.typicalInputTokens",
        ),
        (
            {"workload": {"typicalInputTokens": 16384, "concurrency": 64}},
            "no-pd-buffer-fits",
            "info",
            "pdBufferSize",
        ),
    ],
)
def test_each_sizing_rule_reports_its_setting(changes, code, level, field):
    assert (level, field) in codes(**changes)[code]


@pytest.mark.parametrize(
    "changes, code",
    [
        ({"pdBufferSize": "16GiB"}, "hbm-overcommitted"),
        (
            {"architecture": "llama-3.1-405b", "instanceType": "ml.p6-b300.48xlarge"},
            "weights-exceed-utilization",
        ),
        ({"maxModelLen": 131072, "pdBufferSize": "5GiB"}, "max-model-len-exceeds-pd-buffer"),
        ({"pdBufferSize": "8GiB"}, "pd-buffer-below-max-num-seqs"),
        ({"workload": {"typicalInputTokens": 6000}}, "pd-buffer-below-max-num-seqs"),
        ({"architecture": {**FOUR_KV_HEADS, "kvHeads": 8}}, "kv-replicated"),
        ({"architecture": "deepseek-v3"}, "kv-replicated"),
        ({"architecture": {**FOUR_KV_HEADS, "attentionHeads": 64}}, "heads-not-divisible"),
        ({"modelName": "Llama-3.3-70B-Instruct"}, "model-under-70b"),
        ({"architecture": "qwen2.5-72b"}, "moe-model"),
        ({"workload": {"typicalInputTokens": 4001}}, "short-inputs"),
        ({"workload": {"requestsPerSecond": 2.5}}, "low-request-rate"),
        ({"workload": {"outputTokens": 257}}, "short-outputs"),
        ({"workload": {"concurrency": 64}}, "concurrency-beyond-validated"),
        ({"workload": {"typicalInputTokens": 4096}}, "inputs-below-routing-threshold"),
        ({"workload": {"typicalInputTokens": 6000, "concurrency": 64}}, "no-pd-buffer-fits"),
    ],
)
def test_each_sizing_rule_stays_quiet_when_the_settings_are_right(changes, code):
    assert code not in codes(**changes)


def test_an_overcommitted_decoder_says_how_much_buffer_or_utilization_fits():
    assert message("hbm-overcommitted", pdBufferSize="32GiB") == (
        "32 GiB does not fit on the decoder: with --gpu-memory-utilization 0.75 (59.74 GiB) "
        "and 2 GiB of CUDA overhead it needs 14.09 GiB more than the 79.65 GiB H100 of "
        "ml.p5.48xlarge; allowed: pdBufferSize up to 17.91 GiB or gpuMemoryUtilization 0.57 "
        "or less"
    )


def test_a_buffer_too_small_for_one_long_prompt_says_the_smallest_that_fits():
    # 131,072 tokens x 40 KiB = 5 GiB.
    assert message("max-model-len-exceeds-pd-buffer", maxModelLen=131072, pdBufferSize="4GiB") == (
        "4 GiB cannot hold one --max-model-len prompt: 131,072 tokens take 5 GiB per rank in "
        "256-token chunks, so such a request could never transfer; allowed: at least 5 GiB, or "
        "a lower maxModelLen"
    )


def test_a_busy_buffer_counts_whole_transfers_against_max_num_seqs():
    # 4 GiB / 160 MiB = 25.6: 25 whole transfers of 4,096 tokens, for 32 sequences.
    text = message("pd-buffer-below-max-num-seqs", pdBufferSize="4GiB")
    assert text.startswith(
        "4 GiB holds 25 in-flight transfers of routingThreshold-length prompts (4,096 tokens, "
        "160 MiB per rank), fewer than the decoder's --max-num-seqs 32"
    )
    assert text.endswith("allowed without waiting: at least 5 GiB")


def test_utilization_beyond_the_gpu_leaves_only_a_smaller_buffer_as_the_way_out():
    text = message("hbm-overcommitted", gpuMemoryUtilization=0.99, pdBufferSize="8GiB")
    assert text.endswith("allowed: gpuMemoryUtilization 0.87 or less")


def test_weights_beyond_the_utilization_share_say_what_share_they_need():
    text = message("weights-exceed-utilization", gpuMemoryUtilization=0.2)
    # 17.65 GB of weights per GPU is 0.2064 of an H100's 79.65 GiB.
    assert text.endswith("allowed: above 0.21")


def test_weights_that_fit_at_a_higher_utilization_also_fit_at_a_larger_tensor_parallel_size():
    at_tp_2 = {"tensorParallelSize": 2, "prefill": {"gpus": 2}, "decode": {"gpus": 2}}
    text = message("weights-exceed-utilization", **at_tp_2)
    assert text.endswith("allowed: above 0.83 or a larger tensorParallelSize")


def test_weights_beyond_the_gpu_say_they_do_not_fit_and_what_would():
    at_tp_4 = {"tensorParallelSize": 4, "prefill": {"gpus": 4}, "decode": {"gpus": 4}}
    text = message("weights-exceed-utilization", architecture="llama-3.1-405b", **at_tp_4)
    assert text.startswith(
        "ml.p5.48xlarge cannot hold the model's weights at tensorParallelSize 4, at any "
        "gpuMemoryUtilization: they take 188.6 GiB per GPU"
    )
    assert text.endswith(
        "allowed: a larger tensorParallelSize, or an instanceType with more memory per GPU "
        "(ml.p6-b300.48xlarge), or quantized weights (a lower architecture.weightBytesPerParameter)"
    )


def test_deepseek_v3_on_h100s_is_pointed_at_larger_gpus_not_at_a_utilization_above_0_99():
    # 671B FP8 parameters over 8 ranks is 78.11 GiB per GPU: under an H100's 79.65 GiB, but
    # not beside the 8 GiB PD buffer and the CUDA overhead.
    text = message("weights-exceed-utilization", architecture="deepseek-v3")
    assert "above 0.99" not in text
    assert text.endswith(
        "allowed: an instanceType with more memory per GPU (ml.p5e.48xlarge, ml.p5en.48xlarge, "
        "ml.p6-b200.48xlarge, ml.p6-b300.48xlarge), or quantized weights (a lower "
        "architecture.weightBytesPerParameter)"
    )


# The dev endpoint, sized as the program sizes it: vLLM's settings as it serves the model.


def dev_sizing_problems(changes: dict[str, Any]) -> list[str]:
    spec = endpoint_spec(changes)
    model = endpoint_architecture(spec)
    found = review_sizing(served_spec(spec, model), model).findings
    return [f"{f.field}: {f.message}" for f in found if f.level == "error"]


def test_a_context_longer_than_the_model_supports_is_refused():
    found = dev_sizing_problems({"maxModelLen": 262144, "routingThreshold": 4096})
    assert "more than the 131072 tokens llama-3.3-70b supports" in problem_for("maxModelLen", found)


def test_weights_that_fit_at_no_gpu_memory_utilization_are_one_line():
    assert dev_sizing_problems({"modelName": "DeepSeek-V3"}) == [
        "instanceType: ml.p5.48xlarge cannot hold the model's weights at tensorParallelSize "
        "8, at any gpuMemoryUtilization: they take 78.11 GiB per GPU, and each 79.65 GiB H100 "
        "has 69.65 GiB for vLLM beside the 8 GiB pdBufferSize and 2 GiB of CUDA overhead; "
        "allowed: an instanceType with more memory per GPU (ml.p5e.48xlarge, ml.p5en.48xlarge, "
        "ml.p6-b200.48xlarge, ml.p6-b300.48xlarge), or quantized weights (a lower "
        "architecture.weightBytesPerParameter)"
    ]


@pytest.mark.parametrize(
    "changes",
    [
        {"maxModelLen": 131072, "routingThreshold": 4096},
        {
            "maxModelLen": 262144,
            "pdBufferSize": "16GiB",
            "environmentVariables": {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"},
        },
    ],
)
def test_a_long_context_the_model_or_its_variable_allows_passes(changes):
    assert dev_sizing_problems(changes) == []
    assert endpoint_problems(endpoint_item(changes)) == []
