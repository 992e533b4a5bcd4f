"""routingThreshold from what a short prompt costs the decodes it rides with, against the
trip through the prefill role."""

import yaml

from infra.paths import ROOT
from planner.predict import predict
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
