"""routingThreshold from what a short prompt costs the decodes it rides with, against the
trip through the prefill role."""

import yaml

from infra.paths import ROOT
from planner.predict import predict
from planner.recommend import recommend
from planner.scenario import Scenario
from planner.threshold import routing_threshold


def dev_scenario(rate=3.0):
    """The dev stack's endpoint (Pulumi.dev.yaml) as the planner sees it."""
    config = yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())["config"]
    endpoint = config["hyperpod-dpd:endpoints"][0]
    workload = {**endpoint["workload"], "requestsPerSecond": rate}
    layout = {"replicas": 1, "tensorParallel": endpoint["tensorParallelSize"]}
    return Scenario.model_validate(
        {
            "model": {"name": "llama-3.3-70b"},
            "instanceType": endpoint["instanceType"],
            "prefill": layout,
            "decode": layout,
            "workload": workload,
        }
    )


def threshold(scenario):
    return routing_threshold(scenario, None, predict(scenario))


def test_the_dev_stacks_workload_keeps_short_prompts_on_the_decoder():
    found = threshold(dev_scenario())
    assert found is not None and found.tokens > 0
    # The trip's fixed costs (queue, hop) outweigh what a short prompt costs the decodes.
    assert found.remote <= found.local
    assert f"{found.tokens:,}-token prompt" in found.explain()


def test_a_longer_prefill_queue_keeps_longer_prompts_on_the_decoder():
    one = dev_scenario()
    two = one.model_copy(update={"prefill": one.prefill.model_copy(update={"replicas": 2})})
    queued, spread = threshold(one), threshold(two)
    assert spread.queue < queued.queue
    assert spread.tokens <= queued.tokens


def test_the_prompt_waits_in_the_queue_the_prediction_has():
    # Llama 3.1 70B on p5en at 4,096 in, 256 out and 8 requests a second: the threshold's
    # queue is the prefill role's queue as predicted, never a second, longer one.
    scenario = Scenario.model_validate(
        {
            "model": {"name": "llama-3.1-70b"},
            "instanceType": "ml.p5en.48xlarge",
            "prefill": {"replicas": 5, "tensorParallel": 2},
            "decode": {"replicas": 2, "tensorParallel": 2},
            "workload": {"typicalInputTokens": 4096, "outputTokens": 256, "requestsPerSecond": 8},
        }
    )
    predicted = predict(scenario)
    found = threshold(scenario)
    assert found is not None
    assert found.queue * 1000 <= predicted.queue_ms
    assert found.tokens <= 4096


def test_a_threshold_above_the_typical_prompt_leaves_the_prefill_role_idle_and_says_so():
    # Short prompts at a light load: prefilling them on the decoders costs less than the
    # trip, so the prefill role a disaggregated layout sized would get nothing.
    scenario = Scenario.model_validate(
        {
            "model": {"name": "llama-3.3-70b"},
            "instanceType": "ml.p5.48xlarge",
            "workload": {"typicalInputTokens": 200, "outputTokens": 512, "requestsPerSecond": 3,
                         "slo": {"ttftMs": 2000, "tpotMs": 50}},
        }
    )  # fmt: skip
    recommendation = recommend(scenario)
    assert recommendation.routing_threshold > 200
    assert not recommendation.disaggregation_pays
    assert recommendation.verdict.startswith("Aggregated: a typical prompt of 200 tokens costs")
    assert "which would get almost nothing to do" in recommendation.verdict
