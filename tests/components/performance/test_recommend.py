"""The cheapest layout that meets an SLO, by the model's own prediction."""

import pytest

from components.performance.predict import predict
from components.performance.recommend import recommend
from components.performance.scenario import RoleLayout, Scenario, ScenarioError

WORKLOAD = {
    "typicalInputTokens": 8192,
    "outputTokens": 512,
    "requestsPerSecond": 2,
    "slo": {"ttftMs": 2000, "tpotMs": 50},
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
    )


def _predicted(prefill, decode):
    return predict(scenario(prefill=prefill.model_dump(), decode=decode.model_dump()))


def _meets(prediction):
    return not prediction.saturated and prediction.ttft_ms <= 2000 and prediction.tpot_ms <= 50


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


def test_the_recommendation_is_priced_by_whole_instances(recommendation):
    chosen = recommendation.disaggregated
    assert chosen.cost_per_hour == 100.0 * chosen.prediction.instances


def test_the_aggregated_alternative_runs_on_the_same_gpus(recommendation):
    assert (
        recommendation.aggregated_same_gpus.prediction.gpus
        <= recommendation.disaggregated.prediction.gpus
    )
    assert not recommendation.aggregated_same_gpus.prediction.disaggregated


def test_the_verdict_says_whether_disaggregation_pays(recommendation):
    pays = "Disaggregation pays" if recommendation.disaggregation_pays else "does not pay"
    assert pays in recommendation.verdict


def test_the_json_has_each_role_with_its_prediction_and_cost(recommendation):
    document = recommendation.to_json()
    for role in ("prefill", "decode"):
        assert {"replicas", "tensorParallel", "gpus"} <= set(document[role])
    assert {"ttftMs", "tpotMs", "gpus", "costPerHour"} <= set(document["disaggregated"])
    assert document["aggregated"]["mode"] == "aggregated"
    assert "routingThreshold" in document and "disaggregationPays" in document


def test_a_tighter_slo_needs_at_least_as_many_gpus(recommendation):
    tight = recommend(scenario(workload={**WORKLOAD, "slo": {"ttftMs": 800, "tpotMs": 25}}))
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


def test_the_busier_the_decoder_the_shorter_the_prompts_worth_sending_to_prefill():
    def threshold(rate):
        workload = {
            "typicalInputTokens": 2000,
            "outputTokens": 200,
            "requestsPerSecond": rate,
            "slo": {"ttftMs": 2000, "tpotMs": 50},
        }
        return recommend(
            scenario(model={"name": "llama-3.1-8b"}, workload=workload)
        ).routing_threshold

    quiet, busy = threshold(0.05), threshold(2)
    # A quiet decoder stalls few requests by prefilling a short prompt itself, which costs
    # less than a transfer's fixed cost.
    assert quiet > 0
    assert busy < quiet
