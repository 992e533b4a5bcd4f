"""An endpoint's settings as a scenario, so the stack predicts what it deploys."""

from components.endpoint.spec import EndpointSpec
from components.model.catalog import MODEL_CATALOG
from planner.endpoint_scenario import scenario_from_endpoint
from planner.predict import predict

ENDPOINT = {
    "name": "llama",
    "modelName": "Llama-3.3-70B-Instruct",
    "modelSource": {"s3": {"prefix": "llama"}},
    "instanceType": "ml.p5.48xlarge",
    "maxModelLen": 16384,
    "prefill": {"replicas": 2},
    "decode": {"replicas": 3, "maxNumSeqs": 64},
    "workload": {"typicalInputTokens": 6000, "outputTokens": 400, "requestsPerSecond": 3},
}
LLAMA = MODEL_CATALOG["llama-3.3-70b"]


def test_the_endpoint_roles_become_a_disaggregated_scenario():
    scenario = scenario_from_endpoint(EndpointSpec.model_validate(ENDPOINT), LLAMA)
    assert scenario.engine == "vllm"
    assert (scenario.prefill.replicas, scenario.prefill.tensor_parallel) == (2, 8)
    assert (scenario.decode.replicas, scenario.decode.max_num_seqs) == (3, 64)
    assert scenario.gpu_memory_utilization == 0.75
    prediction = predict(scenario)
    assert prediction.gpus == 40 and prediction.requests_per_second == 3


def test_other_replica_counts_can_be_asked_for():
    spec = EndpointSpec.model_validate(ENDPOINT)
    scenario = scenario_from_endpoint(spec, LLAMA, prefill_replicas=4, decode_replicas=6)
    assert (scenario.prefill.replicas, scenario.decode.replicas) == (4, 6)


def test_without_typical_input_the_prompts_are_taken_at_the_routing_threshold():
    spec = EndpointSpec.model_validate(
        {**ENDPOINT, "workload": {"outputTokens": 400, "concurrency": 16}}
    )
    assert scenario_from_endpoint(spec, LLAMA).workload.typical_input_tokens == 4096


def test_no_scenario_without_a_workload_that_says_its_output():
    assert (
        scenario_from_endpoint(EndpointSpec.model_validate({**ENDPOINT, "workload": None}), LLAMA)
        is None
    )
    spec = EndpointSpec.model_validate({**ENDPOINT, "workload": {"typicalInputTokens": 100}})
    assert scenario_from_endpoint(spec, LLAMA) is None


def test_experts_spread_over_the_tensor_parallel_gpus_when_worker_args_ask():
    spec = EndpointSpec.model_validate(
        {**ENDPOINT, "architecture": "qwen3-30b-a3b", "workerArgs": ["--enable-expert-parallel"]}
    )
    scenario = scenario_from_endpoint(spec, MODEL_CATALOG["qwen3-30b-a3b"])
    assert scenario.prefill.expert_parallel == scenario.decode.expert_parallel == 8
    plain = scenario_from_endpoint(EndpointSpec.model_validate(ENDPOINT), LLAMA)
    assert plain.decode.expert_parallel == 1


def test_the_endpoint_moves_its_kv_through_lmcache_at_its_slo_percentile():
    spec = EndpointSpec.model_validate(
        {**ENDPOINT, "workload": {**ENDPOINT["workload"], "slo": {"ttftMs": 900, "percentile": 99}}}
    )
    scenario = scenario_from_endpoint(spec, LLAMA)
    assert scenario.kv_connector == "lmcache"
    assert scenario.workload.slo.percentile == 99
