"""Each endpoint with a workload is predicted at its load and held to its SLO, as a warning."""

import re
from typing import Any

import pytest

from components.endpoint.spec import EndpointSpec
from components.sizing.checks import check_sizing
from components.sizing.endpoint_architecture import endpoint_architecture
from components.sizing.kv import size_endpoint
from infra.cluster_fit import check_cluster_fit
from infra.endpoint_predictions import predict_endpoint, review_predictions
from infra.stack_settings import StackSettings
from planner.endpoint_scenario import scenario_from_endpoint
from planner.predict import predict
from tests.support import (
    P,
    aggregated_endpoint,
    changed,
    dev_config,
    dev_endpoint,
    price_table,
    prod_config,
    settings_of,
    stack_problems,
    with_endpoints,
)

TABLE = price_table({"us-west-2": {"ml.p5.48xlarge": 80}})


def endpoint(workload: dict[str, Any] | None = None, **changes: Any) -> EndpointSpec:
    """The dev endpoint (1 prefill and 1 decode replica of 8 GPUs) with this workload."""
    spec = {**dev_endpoint(), **changes}
    spec["workload"] = workload
    return EndpointSpec.model_validate(spec)


def workload(**slo: float) -> dict[str, Any]:
    return {
        "typicalInputTokens": 6000,
        "outputTokens": 512,
        "requestsPerSecond": 3,
        "slo": slo or None,
    }


def stack_of(config: dict[str, Any]) -> StackSettings:
    return StackSettings.model_validate(
        {key.removeprefix(f"{P}:"): v for key, v in config.items() if key.startswith(f"{P}:")}
    )


def review_stack(config: dict[str, Any]):
    """Endpoint 0 of the stack `config` reviewed, as the program reviews it."""
    stack = stack_of(config)
    spec = stack.endpoints[0]
    return review_predictions(stack, 0, endpoint_architecture(spec), config["aws:region"])


def review(spec: EndpointSpec, gpu_nodes: int = 2):
    """`spec` reviewed as the dev stack's one endpoint, on `gpu_nodes` p5 nodes."""
    dumped = spec.model_dump(by_alias=True, exclude_unset=True)
    return review_stack(with_endpoints(dumped, gpu_nodes=gpu_nodes))


def configured_ttft(spec: EndpointSpec) -> float:
    """The configured layout's TTFT at the SLO's percentile (90 unless set)."""
    scenario = scenario_from_endpoint(spec, endpoint_architecture(spec))
    assert scenario is not None
    return predict(scenario).ttft_at(90)


@pytest.mark.parametrize(
    "no_prediction",
    [None, {"typicalInputTokens": 6000, "requestsPerSecond": 3}],
    ids=["no workload", "no outputTokens"],
)
def test_without_a_workload_that_says_its_output_there_is_nothing_to_predict(no_prediction):
    assert review(endpoint(no_prediction)) == (None, [])


def test_the_configured_roles_are_predicted_at_the_workloads_rate():
    ep, found = review(endpoint(workload()))
    assert found == []
    assert ep is not None and ep.at_maxima is None
    assert ep.configured.requests_per_second == 3
    assert [(r.name, r.replicas, r.gpus) for r in ep.configured.roles] == [
        ("prefill", 1, 8),
        ("decode", 1, 8),
    ]
    assert ep.configured.ttft_ms > 0 and ep.configured.tpot_ms > 0
    assert ep.configured.output_tokens_per_second > 0
    assert ep.meets_slo is None


def test_a_closed_loop_workload_is_predicted_at_its_concurrency():
    rates = []
    for clients in (2, 8):
        ep, _ = review(endpoint({**workload(), "requestsPerSecond": None, "concurrency": clients}))
        assert ep is not None
        rates.append(ep.configured.requests_per_second)
    # More clients waiting on their answers send more requests a second.
    assert 0 < rates[0] < rates[1]


def missing_ttft(**changes: Any) -> EndpointSpec:
    """The endpoint with a TTFT SLO its configured layout misses by 40%."""
    tight = configured_ttft(endpoint(workload())) * 0.6
    return endpoint(workload(ttftMs=tight, tpotMs=1000), **changes)


def test_an_slo_the_prediction_meets_is_no_warning():
    spec = endpoint(workload())
    loose = configured_ttft(spec) * 2
    ep, found = review(endpoint(workload(ttftMs=loose, tpotMs=1000)))
    assert ep is not None and ep.meets_slo is True
    assert found == []


def test_a_missed_slo_warns_on_workload_with_every_setting_that_meets_it():
    spec = missing_ttft()
    ep, (found,) = review(spec)
    assert (found.level, found.code, found.field) == ("warning", "slo-missed", "workload")
    assert "with prefill 1x8 GPU, decode 1x8 GPU (as configured), missing the SLO" in found.message
    assert ep is not None and ep.suggestion is not None and ep.meets_slo is False
    settings = ep.suggestion.settings
    for key, value in settings.items():
        assert f"`pulumi config set --path 'endpoints[0].{key}' {value}`" in found.message
    # Each role's replicas and --max-num-seqs, the ones the prediction assumed.
    assert {"prefill.replicas", "prefill.maxNumSeqs", "decode.replicas", "decode.maxNumSeqs"} <= (
        settings.keys()
    )
    # The SLO's own figures, not the means, against its limits.
    assert "predicts p90 TTFT " in found.message and "p90 inter-token latency (tpotMs)" in (
        found.message
    )


# The advice as printed: `pulumi config set --path 'KEY' VALUE` commands, which store an
# integer as an integer and any other value as text.
COMMAND = re.compile(r"`pulumi config set --path '([^']+)' ([^`\s]+)`")


def applied_as_printed(config: dict[str, Any], message: str) -> dict[str, Any]:
    printed = COMMAND.findall(message)
    assert printed, message
    return changed(config, {f"{P}:{key}": int(v) if v.isdigit() else v for key, v in printed})


def cluster_fit_refusals(config: dict[str, Any]) -> list[str]:
    def check(stack: StackSettings):
        return check_cluster_fit(stack.cluster, stack.network, stack.endpoints, "us-west-2")

    return stack_problems(config, check)


def dev_at(rate: float, tokens: int, output: int, ttft: float, kind: str) -> dict[str, Any]:
    load = {"typicalInputTokens": tokens, "outputTokens": output, "requestsPerSecond": rate}
    workload = {**load, "slo": {"ttftMs": ttft, "tpotMs": 30}}
    if kind == "aggregated":
        return with_endpoints(aggregated_endpoint(workload=workload))
    return with_endpoints({**dev_endpoint(), "workload": workload})


def prod_at(rate: float) -> dict[str, Any]:
    """The prod stack (p5en in us-east-1, its prefill role autoscaling) at `rate`."""
    config = prod_config()
    (endpoint,) = config[f"{P}:endpoints"]
    endpoint["workload"] |= {
        "requestsPerSecond": rate,
        "concurrency": None,
        "slo": {"ttftMs": 1500, "tpotMs": 30},
    }
    return config


# Workloads around the dev endpoint (70B on two p5 nodes), on both endpoint kinds, and on the
# prod stack's shape, each with an SLO its configured layout misses.
GRID = {
    **{
        f"dev {kind} {rate}/s {tokens}:{output}": dev_at(rate, tokens, output, ttft, kind)
        for kind, rate, tokens, output, ttft in (
            ("disaggregated", 4, 2000, 256, 150),
            ("disaggregated", 6, 5000, 512, 2000),
            ("disaggregated", 10, 8000, 1024, 3000),
            ("disaggregated", 3, 16000, 256, 2000),
            ("aggregated", 6, 5000, 1024, 2000),
            ("aggregated", 8, 8000, 256, 1000),
        )
    },
    **{f"prod {rate}/s": prod_at(rate) for rate in (4, 6, 9)},
}


@pytest.mark.parametrize("config", GRID.values(), ids=GRID.keys())
def test_applying_the_advice_as_printed_meets_the_slo_and_the_cluster_holds_it(config):
    ep, found = review_stack(config)
    assert ep is not None and not ep.meets_slo and ep.suggestion is not None, found
    (advice,) = found
    fixed = applied_as_printed(config, advice.message)
    ep, found = review_stack(fixed)
    assert ep is not None and ep.meets_slo and found == []
    assert cluster_fit_refusals(fixed) == []
    spec = stack_of(fixed).endpoints[0]
    sizing = [f.code for f in check_sizing(spec, size_endpoint(spec, endpoint_architecture(spec)))]
    assert "pd-buffer-below-max-num-seqs" not in sizing and "hbm-overcommitted" not in sizing


def test_advice_raises_the_instance_count_only_when_the_group_is_too_short():
    spec = endpoint({**workload(ttftMs=2000, tpotMs=50), "requestsPerSecond": 6})
    ep, (short,) = review(spec, gpu_nodes=2)
    assert ep is not None and ep.suggestion is not None
    # Its pods take 8 GPUs, a node each.
    nodes = ep.suggestion.prediction.gpus // 8
    assert nodes > 2
    raised = f"`pulumi config set --path 'cluster.instanceGroups[0].instanceCount' {nodes}`"
    assert short.message.endswith(
        f" and {raised}. A prediction is an estimate: measure before you buy"
    )
    _, (roomy,) = review(spec, gpu_nodes=nodes)
    assert "instanceCount" not in roomy.message
    # The layout searched keeps the endpoint's tensorParallelSize, and says so.
    assert "`pulumi config set --path 'endpoints[0].tensorParallelSize' 8`" in roomy.message


def test_advice_for_a_later_endpoint_names_it_and_counts_the_nodes_the_others_hold():
    busy = {**dev_endpoint(), "name": "busy", "endpointName": "busy"}
    busy["workload"] = {**busy["workload"], "requestsPerSecond": 6}
    config = with_endpoints(dev_endpoint(), busy, gpu_nodes=4)
    stack = stack_of(config)
    ep, (advice,) = review_predictions(
        stack, 1, endpoint_architecture(stack.endpoints[1]), "us-west-2"
    )
    assert ep is not None and ep.suggestion is not None
    assert "`pulumi config set --path 'endpoints[1].prefill.replicas' " in advice.message
    # Its own pods, a node each, beside the two the first endpoint holds.
    nodes = ep.suggestion.prediction.gpus // 8 + 2
    assert f"'cluster.instanceGroups[0].instanceCount' {nodes}`" in advice.message
    assert cluster_fit_refusals(applied_as_printed(config, advice.message)) == []


def autoscaled_prefill(most: int) -> dict[str, Any]:
    return {"replicas": 1, "gpus": 8, "autoscaling": {"minReplicas": 1, "maxReplicas": most}}


def test_autoscaling_maxima_that_meet_the_slo_are_no_warning():
    ep, found = review(missing_ttft(prefill=autoscaled_prefill(4)))
    assert ep is not None and ep.at_maxima is not None
    assert ep.at_maxima.roles[0].replicas == 4
    assert found == []


def test_advice_for_a_role_that_autoscales_names_its_maximum():
    _, (found,) = review(missing_ttft(prefill=autoscaled_prefill(1)))
    assert "prefill.autoscaling.maxReplicas" in found.message


def test_an_unmeetable_slo_says_no_layout_meets_it_and_where_to_look():
    _, (found,) = review(endpoint(workload(ttftMs=1, tpotMs=0.1)))
    assert "no layout of up to 16 replicas a role at tensorParallelSize 8 meets it" in (
        found.message
    )
    assert "`hyperpod-dpd plan recommend` searches other sizes" in found.message


def test_the_cost_of_a_million_output_tokens_follows_the_gpus_and_the_throughput():
    spec = endpoint(workload())
    ep = predict_endpoint(spec, endpoint_architecture(spec), "us-west-2", TABLE)
    assert ep is not None
    # 16 GPUs of an $80 8-GPU node.
    assert ep.hourly == 160
    tokens_an_hour = ep.configured.output_tokens_per_second * 3600
    assert ep.cost_per_million_output_tokens == pytest.approx(160 / tokens_an_hour * 1e6)
    unpriced = predict_endpoint(spec, endpoint_architecture(spec), "eu-west-1", TABLE)
    assert unpriced is not None and unpriced.cost_per_million_output_tokens is None


def test_a_layout_the_model_cannot_place_is_a_warning_not_a_refusal():
    one_gpu = {"replicas": 1, "gpus": 1}
    spec = endpoint(workload(), tensorParallelSize=1, prefill=one_gpu, decode=one_gpu)
    ep, (found,) = review(spec)
    assert ep is None
    assert (found.level, found.code, found.field) == ("warning", "no-prediction", "workload")
    assert found.message.startswith("no prediction: ")
    assert "scenario." not in found.message


def test_a_load_beyond_the_layouts_capacity_is_named_as_offered():
    spec = endpoint({**workload(ttftMs=2000, tpotMs=50), "requestsPerSecond": 50})
    ep, (found,) = review(spec)
    assert ep is not None and ep.configured.saturated
    assert ep.load == 50
    share = f"{50 / ep.configured.max_requests_per_second:.0%}"
    assert found.message.startswith(f"at 50 requests per second ({share} of what the layout")
    capacity = ep.configured.max_requests_per_second
    assert f"the layout serves at most {capacity:.3g} requests per second" in found.message


def test_an_instance_type_the_model_has_no_figures_for_is_a_warning_on_instance_type(
    monkeypatch,
):
    from planner import hardware

    monkeypatch.setattr(hardware, "GPUS", {k: v for k, v in hardware.GPUS.items() if k != "H100"})
    ep, (found,) = review(endpoint(workload(ttftMs=2000)))
    assert ep is None
    assert (found.level, found.code, found.field) == ("warning", "no-prediction", "instanceType")
    assert "no figures for the H100 GPUs of ml.p5.48xlarge" in found.message


def test_a_failure_inside_the_model_is_a_warning_and_never_stops_the_deploy(monkeypatch):
    from infra import endpoint_predictions

    def broken(*_args, **_kwargs):
        raise ZeroDivisionError("division by zero")

    monkeypatch.setattr(endpoint_predictions, "predict", broken)
    ep, (found,) = review(endpoint(workload(ttftMs=2000)))
    assert ep is None
    assert (found.level, found.field) == ("warning", "workload")
    assert "ZeroDivisionError: division by zero" in found.message


def test_an_aggregated_endpoint_on_a_gpu_without_figures_is_advised_with_a_warning_naming_it():
    spec = EndpointSpec.model_validate(
        {
            **aggregated_endpoint(),
            "modelName": "Llama-3.1-8B-Instruct",
            "instanceType": "ml.g5.12xlarge",
            "tensorParallelSize": 4,
            "serving": {"gpus": 4},
            "workload": workload(ttftMs=2000),
        }
    )
    ep, (found,) = review(spec)
    assert ep is None
    assert (found.level, found.code, found.field) == ("warning", "no-prediction", "instanceType")
    assert "no figures for the A10G GPUs of ml.g5.12xlarge" in found.message


def test_an_aggregated_endpoint_is_predicted_at_its_serving_replicas():
    spec = EndpointSpec.model_validate({**aggregated_endpoint(), "workload": workload()})
    ep, _ = review(spec)
    assert ep is not None
    assert not ep.configured.disaggregated
    assert ep.configured.gpus == 16


def test_the_endpoints_engine_is_the_one_predicted_and_one_without_a_model_says_so():
    sglang = {**aggregated_endpoint(), "engine": "sglang", "workload": workload()}
    ep, _ = review(EndpointSpec.model_validate(sglang))
    assert ep is not None and ep.judged_scenario.engine == "sglang"
    tgi = EndpointSpec.model_validate({**sglang, "engine": "tgi"})
    ep, (found,) = review(tgi)
    assert ep is None and (found.code, found.field) == ("no-prediction", "engine")
    assert "the planner has no model of tgi" in found.message


def test_prompts_under_the_routing_threshold_are_predicted_on_the_decoders():
    at = {threshold: review(endpoint(workload(), routingThreshold=threshold))[0]
          for threshold in (4096, 16000)}  # fmt: skip
    # 6,000-token prompts: past 4,096 they take the prefill role; under 16,000 the decoders
    # prefill them, whose steps then carry the prompts too.
    assert at[4096].configured.ttft_ms != at[16000].configured.ttft_ms
    assert at[4096].configured.roles[0].batch > 0 == at[16000].configured.roles[0].batch
    assert at[16000].configured.tpot_ms > at[4096].configured.tpot_ms


def test_on_dev_at_six_requests_a_second_the_printed_advice_clears_the_warning():
    config = dev_config()
    config[f"{P}:endpoints"][0]["workload"]["requestsPerSecond"] = 6
    (advice,) = [w for w in settings_of(config).warnings if "endpoints[0].workload" in w]
    checked = settings_of(applied_as_printed(config, advice))
    assert checked.predictions[0].meets_slo
    assert [w for w in checked.warnings if "endpoints[0]" in w] == []
