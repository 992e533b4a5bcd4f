"""The cheapest layouts the stack can deploy that meet an SLO, and whether disaggregation
pays, by the model's own prediction."""

import pytest

from planner.predict import predict
from planner.recommend import recommend
from planner.scenario import RoleLayout, Scenario, ScenarioError

WORKLOAD = {
    "typicalInputTokens": 8192,
    "outputTokens": 1024,
    "requestsPerSecond": 4,
    "slo": {"ttftMs": 3000, "tpotMs": 40, "percentile": 99},
}


def scenario(**changes):
    return Scenario.model_validate(
        {
            "model": {"name": "llama-3.3-70b"},
            "instanceType": "ml.p5.48xlarge",
            "workload": WORKLOAD,
            **changes,
        }
    )


@pytest.fixture(scope="module")
def recommendation():
    return recommend(scenario(), price_per_instance_hour=100.0)


def _layout(role):
    return RoleLayout(
        replicas=role.replicas,
        tensor_parallel=role.tensor_parallel,
        expert_parallel=role.expert_parallel,
        data_parallel_attention=role.data_parallel_attention,
        max_num_seqs=role.max_num_seqs,
    )


def _predicted(prefill, decode):
    return predict(scenario(prefill=prefill.model_dump(), decode=decode.model_dump()))


def _meets(prediction, percentile=99):
    return (
        not prediction.saturated
        and prediction.ttft_at(percentile) <= 3000
        and prediction.itl_at(percentile) <= 40
    )


def test_the_recommendation_meets_its_slo_and_one_replica_fewer_of_either_role_would_not(
    recommendation,
):
    chosen = recommendation.disaggregated
    assert chosen.meets_slo and _meets(chosen.prediction)
    prefill, decode = (_layout(role) for role in chosen.prediction.roles)
    assert _meets(_predicted(prefill, decode))
    if prefill.replicas > 1:
        fewer = prefill.model_copy(update={"replicas": prefill.replicas - 1})
        assert not _meets(_predicted(fewer, decode))
    if decode.replicas > 1:
        fewer = decode.model_copy(update={"replicas": decode.replicas - 1})
        assert not _meets(_predicted(prefill, fewer))


def test_only_layouts_an_endpoint_deploys_are_recommended(recommendation):
    prefill, decode = recommendation.disaggregated.prediction.roles
    # One tensorParallelSize for both roles (LMCache pairs prefill and decode ranks by index),
    # of those the endpoint takes, and no data-parallel attention.
    assert prefill.tensor_parallel == decode.tensor_parallel in (1, 2, 4, 8)
    assert prefill.data_parallel_attention == decode.data_parallel_attention == 1
    (serving,) = recommendation.aggregated.prediction.roles
    assert serving.tensor_parallel in (1, 2, 4, 8)


def test_on_a_one_gpu_type_only_one_gpu_replicas_are_searched():
    # Llama 3.1 8B would take two L4s a replica, more than an ml.g6.8xlarge pod can have.
    with pytest.raises(
        ScenarioError,
        match=r"^scenario\.model: no tensorParallelSize an endpoint takes on ml\.g6\.8xlarge \(1\)",
    ):
        recommend(scenario(model={"name": "llama-3.1-8b"}, instanceType="ml.g6.8xlarge"))


def test_a_moe_model_spreads_its_experts_over_the_tensor_parallel_gpus():
    moe = recommend(
        scenario(
            model={"name": "qwen3-235b-a22b"},
            instanceType="ml.p5en.48xlarge",
            workload={**WORKLOAD, "slo": {"ttftMs": 3000, "tpotMs": 60}},
        )
    )
    for option in (moe.disaggregated, moe.aggregated):
        for role in option.prediction.roles:
            assert role.expert_parallel in (1, role.tensor_parallel)
            assert role.data_parallel_attention == 1


def test_each_role_runs_a_max_num_seqs_that_holds_its_batch_with_room(recommendation):
    for role in recommendation.disaggregated.prediction.roles:
        if role.name == "decode":
            assert role.batch <= 0.75 * role.max_num_seqs
        # A power of two, no lower than the operator's defaults.
        assert role.max_num_seqs >= (16 if role.name == "prefill" else 32)
        assert role.max_num_seqs & (role.max_num_seqs - 1) == 0


def test_the_recommendation_is_priced_by_whole_instances(recommendation):
    chosen = recommendation.disaggregated
    assert chosen.cost_per_hour == 100.0 * chosen.prediction.instances


def test_disaggregation_pays_only_at_a_lower_cost_and_says_by_how_much(recommendation):
    # A p99 inter-token SLO: colocated, a step that carries a prompt's chunk is the tail, so
    # aggregated meets it only by spreading the load until few steps carry one.
    d, a = recommendation.disaggregated, recommendation.aggregated
    assert recommendation.disaggregation_pays
    assert d.cost_per_hour < a.cost_per_hour
    saving = a.cost_per_hour - d.cost_per_hour
    assert f"saves ${saving:,.2f}/h" in recommendation.verdict
    assert "per million output tokens" in recommendation.verdict
    assert "disaggregated's p99 TTFT is" in recommendation.verdict


def test_at_equal_cost_the_verdict_is_aggregated():
    equal = recommend(
        scenario(workload={**WORKLOAD, "slo": {"ttftMs": 3000, "tpotMs": 40}}),
        price_per_instance_hour=100.0,
    )
    if equal.disaggregated and equal.aggregated:
        assert (equal.disaggregated.cost_per_hour < equal.aggregated.cost_per_hour) == (
            equal.disaggregation_pays
        )
    assert not equal.disaggregation_pays or "saves $" in equal.verdict


@pytest.mark.parametrize(
    "model, workload",
    [
        (
            "llama-3.3-70b",
            {"typicalInputTokens": 1024, "outputTokens": 256, "requestsPerSecond": 8},
        ),
        (
            "llama-3.3-70b",
            {"typicalInputTokens": 8192, "outputTokens": 1024, "requestsPerSecond": 1},
        ),
        (
            "llama-3.1-8b",
            {"typicalInputTokens": 8192, "outputTokens": 1024, "requestsPerSecond": 8},
        ),
        (
            "llama-3.3-70b",
            {"typicalInputTokens": 512, "outputTokens": 512, "requestsPerSecond": 16},
        ),
    ],
    ids=["1024-in", "1-rps", "8b", "512-in"],
)
@pytest.mark.parametrize("percentile", [90, 99])
def test_short_inputs_low_load_and_small_models_are_served_aggregated(model, workload, percentile):
    # HyperPod's DPD guide: disaggregation pays only for dense 70B+ models, inputs over
    # 4,000 tokens, more than 2 requests per second and outputs over 256.
    slo = {"ttftMs": 2000, "tpotMs": 40, "percentile": percentile}
    found = recommend(scenario(model={"name": model}, workload={**workload, "slo": slo}))
    assert not found.disaggregation_pays
    assert found.verdict.startswith("Aggregated")


def test_a_tighter_slo_needs_at_least_as_many_gpus(recommendation):
    tight = recommend(
        scenario(workload={**WORKLOAD, "slo": {"ttftMs": 1500, "tpotMs": 25, "percentile": 99}})
    )
    if tight.disaggregated is not None:
        assert tight.disaggregated.prediction.gpus >= recommendation.disaggregated.prediction.gpus


@pytest.mark.parametrize(
    "workload, key",
    [
        ({**WORKLOAD, "slo": None}, "scenario.workload.slo"),
        ({**WORKLOAD, "slo": {"ttftMs": 2000}}, "scenario.workload.slo"),
        ({**WORKLOAD, "requestsPerSecond": None}, "scenario.workload.requestsPerSecond"),
    ],
)
def test_a_recommendation_needs_an_slo_and_a_request_rate(workload, key):
    with pytest.raises(ScenarioError, match=rf"^{key}: required"):
        recommend(scenario(workload=workload))


def test_the_json_has_each_role_with_its_prediction_and_cost(recommendation):
    document = recommendation.to_json()
    for role in ("prefill", "decode"):
        assert {"replicas", "tensorParallel", "gpus", "maxNumSeqs"} <= set(document[role])
    assert {"ttftMs", "itlMs", "gpus", "costPerHour"} <= set(document["disaggregated"])
    assert document["aggregated"]["mode"] == "aggregated"
    assert {"routingThreshold", "routingThresholdReason", "disaggregationPays"} <= set(document)
