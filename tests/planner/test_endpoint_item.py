"""`plan recommend --emit-endpoint`: the item it prints is one the stack takes as it is, and
rendered, it predicts what the recommendation printed."""

import json

import pytest
import yaml

from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.endpoint.checks import check_endpoint
from components.endpoint.spec import EndpointSpec
from planner.endpoint_item import endpoint_item, nodes_needed
from planner.recommend import recommend
from planner.scenario import Scenario, ScenarioError
from tests.support import config_file, render, settings_of, with_endpoints
from tools.cli import main

# A p99 inter-token SLO on long prompts: the disaggregated layout costs less.
LLAMA_70B = {
    "name": "llama-long",
    "model": {"name": "llama-3.3-70b"},
    "instanceType": "ml.p5.48xlarge",
    "workload": {
        "typicalInputTokens": 8192,
        "outputTokens": 1024,
        "requestsPerSecond": 4,
        "slo": {"ttftMs": 3000, "tpotMs": 40, "percentile": 99},
    },
}
LLAMA_8B = {
    **LLAMA_70B,
    "name": "llama-small",
    "model": {"name": "llama-3.1-8b"},
    "workload": {**LLAMA_70B["workload"], "slo": {"ttftMs": 2000, "tpotMs": 40}},
}
MOE = {
    **LLAMA_70B,
    "name": "qwen-moe",
    "model": {"name": "qwen3-30b-a3b"},
    "workload": {**LLAMA_70B["workload"], "slo": {"ttftMs": 2000, "tpotMs": 40}},
}


def scenario(document):
    return Scenario.model_validate(document)


@pytest.fixture(scope="module")
def recommendations():
    return {
        document["name"]: (scenario(document), recommend(scenario(document)))
        for document in (LLAMA_70B, LLAMA_8B, MOE)
    }


def emitted(recommendations, name, disaggregated=None):
    found, recommendation = recommendations[name]
    return endpoint_item(found, recommendation, disaggregated=disaggregated)


@pytest.mark.parametrize("name", ["llama-long", "qwen-moe"])
def test_a_disaggregated_item_passes_the_endpoints_own_spec_and_checks(recommendations, name):
    item = emitted(recommendations, name, disaggregated=True)
    spec = EndpointSpec.model_validate(item)
    assert [f for f in check_endpoint(spec) if f.level == "error"] == []
    option = recommendations[name][1].disaggregated
    prefill, decode = option.prediction.roles
    assert spec.tensor_parallel_size == prefill.tensor_parallel == decode.tensor_parallel
    assert (spec.prefill.replicas, spec.decode.replicas) == (prefill.replicas, decode.replicas)
    assert (spec.prefill_max_num_seqs, spec.decode_max_num_seqs) == (
        prefill.max_num_seqs,
        decode.max_num_seqs,
    )
    assert spec.gpu_memory_utilization == 0.75
    assert spec.routing_threshold == recommendations[name][1].routing_threshold


def test_a_moe_item_spreads_the_experts_with_vllms_flag(recommendations):
    item = emitted(recommendations, "qwen-moe", disaggregated=True)
    option = recommendations["qwen-moe"][1].disaggregated
    if option.prediction.roles[0].expert_parallel > 1:
        assert item["workerArgs"] == ["--enable-expert-parallel"]


def test_an_aggregated_winner_is_a_serving_block(recommendations):
    found, recommendation = recommendations["llama-small"]
    assert not recommendation.disaggregation_pays
    item = endpoint_item(found, recommendation)
    assert "prefill" not in item and "decode" not in item
    (serving,) = recommendation.aggregated.prediction.roles
    assert item["serving"]["replicas"] == serving.replicas
    assert item["serving"]["gpus"] == item["tensorParallelSize"] == serving.tensor_parallel


@pytest.mark.parametrize(
    "changes, key",
    [
        ({"engine": "sglang"}, "engine"),
        ({"precision": "int8"}, "precision"),
        ({"kvCacheDtype": "fp8"}, "kvCacheDtype"),
        ({"speculativeDecoding": "mtp2"}, "speculativeDecoding"),
    ],
)
def test_what_an_endpoint_cannot_say_is_refused_naming_the_scenario_key(
    recommendations, changes, key
):
    _, recommendation = recommendations["llama-long"]
    with pytest.raises(ScenarioError, match=rf"^scenario\.{key}: "):
        endpoint_item(scenario({**LLAMA_70B, **changes}), recommendation)


def _round_trip(recommendations, tmp_path, capsys, name, *, disaggregated):
    """The item rendered in the dev stack, and what `plan --stack` predicts for it."""
    found, recommendation = recommendations[name]
    item = endpoint_item(found, recommendation, disaggregated=disaggregated)
    config = with_endpoints(item, gpu_nodes=nodes_needed(recommendation, disaggregated))
    settings_of(config)  # as-is: every check of the program takes it
    assert main(["plan", "--stack", "test", "--config-file", config_file(tmp_path, config),
                 "--json"]) == 0  # fmt: skip
    (predicted,) = json.loads(capsys.readouterr().out).values()
    printed = recommendation.disaggregated if disaggregated else recommendation.aggregated
    return printed.prediction.to_json(), predicted


def _within(printed, predicted, share=0.02):
    for key in ("ttftMs", "tpotMs", "itlMs"):
        assert predicted[key] == pytest.approx(printed[key], rel=share), key
    for key in ("outputTokensPerSecond", "gpus"):
        assert predicted[key] == pytest.approx(printed[key], rel=share), key


@pytest.mark.parametrize("name", ["llama-long", "qwen-moe"], ids=["70b-p5", "moe"])
def test_a_disaggregated_item_rendered_in_the_dev_stack_predicts_what_recommend_printed(
    recommendations, tmp_path, capsys, name
):
    printed, predicted = _round_trip(recommendations, tmp_path, capsys, name, disaggregated=True)
    _within(printed, predicted)


@pytest.mark.parametrize("name", ["llama-small", "qwen-moe"], ids=["8b", "moe"])
def test_an_aggregated_item_rendered_in_the_dev_stack_predicts_what_recommend_printed(
    recommendations, tmp_path, capsys, name
):
    printed, predicted = _round_trip(recommendations, tmp_path, capsys, name, disaggregated=False)
    _within(printed, predicted)


def test_the_command_prints_a_yaml_item_to_paste_with_its_nodes(recommendations, tmp_path, capsys):
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(LLAMA_70B))
    assert main(["plan", "recommend", "--scenario", str(path), "--emit-endpoint"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("# disaggregated, as plan recommend predicted it")
    (item,) = yaml.safe_load(out)
    assert item["name"] == "llama-long" and item["prefill"]["maxNumSeqs"] >= 16
    assert f"# {nodes_needed(recommendations['llama-long'][1])} ml.p5.48xlarge node(s)" in out


# Four GPUs a node; one with EFA between the nodes; one without. A request a second, so the
# one-GPU pods stay within the example account's quota of those nodes.
@pytest.mark.parametrize("instance_type", ["ml.g6e.12xlarge", "ml.g6e.8xlarge", "ml.g6e.xlarge"])
def test_on_a_type_without_dpd_the_emitted_item_is_aggregated_and_renders_as_printed(
    instance_type,
):
    workload = {**LLAMA_8B["workload"], "requestsPerSecond": 1}
    found = scenario(
        {**LLAMA_8B, "name": "llama-g6e", "instanceType": instance_type, "workload": workload}
    )
    recommendation = recommend(found)
    assert recommendation.disaggregated is None
    item = endpoint_item(found, recommendation)
    # Each pod is one node, whatever the model would gain from more GPUs.
    assert "prefill" not in item
    assert item["serving"]["gpus"] <= GPU_INSTANCE_TYPES[instance_type].gpus
    config = with_endpoints(item, gpu_nodes=nodes_needed(recommendation))
    config["hyperpod-dpd:cluster"]["instanceGroups"][0]["instanceType"] = instance_type
    (manifest,) = [
        r.inputs for r in render(config).resources if r.type.endswith(":InferenceEndpointConfig")
    ]
    assert "pdSpec" not in manifest["spec"]
    assert manifest["spec"]["instanceType"] == instance_type
    assert manifest["spec"]["replicas"] == item["serving"]["replicas"]


def test_the_model_is_named_as_published_with_what_a_first_request_needs(recommendations):
    item = emitted(recommendations, "llama-long")
    assert item["modelName"] == "Llama-3.3-70B-Instruct"
    assert item["modelSource"] == {"s3": {"prefix": "Llama-3.3-70B-Instruct"}}
    assert (item["endpointName"], item["invocationEndpoint"]) == (
        "llama-long",
        "v1/chat/completions",
    )


def test_a_scenario_naming_a_mode_gets_that_modes_layout(recommendations):
    _, recommendation = recommendations["llama-long"]
    assert recommendation.disaggregation_pays
    named = scenario({**LLAMA_70B, "serving": {"tensorParallel": 8}})
    item = endpoint_item(named, recommendation)
    assert "serving" in item and "prefill" not in item


def test_with_json_the_item_is_printed_as_json(tmp_path, capsys):
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(LLAMA_70B))
    assert main(["plan", "recommend", "--scenario", str(path), "--emit-endpoint", "--json"]) == 0
    (item,) = json.loads(capsys.readouterr().out)
    assert item["modelName"] == "Llama-3.3-70B-Instruct"
