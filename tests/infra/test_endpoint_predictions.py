"""Each endpoint with a workload is predicted at its load and held to its SLO, as a warning."""

from typing import Any

import pytest

from components.endpoint.spec import EndpointSpec
from components.sizing.endpoint_architecture import endpoint_architecture
from infra.endpoint_predictions import meets, predict_endpoint, review_predictions
from planner.endpoint_scenario import scenario_from_endpoint
from planner.predict import predict
from tests.support import aggregated_endpoint, dev_endpoint, price_table

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


def review(spec: EndpointSpec):
    return review_predictions(spec, endpoint_architecture(spec), "us-west-2")


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


def test_a_missed_slo_warns_on_workload_with_replicas_that_meet_it():
    spec = missing_ttft()
    ep, (found,) = review(spec)
    assert (found.level, found.code, found.field) == ("warning", "slo-missed", "workload")
    assert "with prefill 1x8 GPU, decode 1x8 GPU (as configured), missing the SLO" in found.message
    assert ep is not None and ep.suggestion is not None and ep.meets_slo is False
    prefill, decode = ep.suggestion.prefill_replicas, ep.suggestion.decode_replicas
    assert f"prefill.replicas {prefill} and decode.replicas {decode} would" in found.message
    assert "plan recommend's cheapest layout" in found.message
    # The suggestion meets the SLO by the model's own prediction; one replica fewer of a role
    # (where there is one to spare) does not.
    architecture = endpoint_architecture(spec)
    assert ep.slo is not None and meets(ep.suggestion.prediction, ep.slo)
    for fewer in ((prefill - 1, decode), (prefill, decode - 1)):
        if min(fewer) >= 1:
            scenario = scenario_from_endpoint(
                spec, architecture, prefill_replicas=fewer[0], decode_replicas=fewer[1]
            )
            assert scenario is not None and not meets(predict(scenario), ep.slo)


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


def test_an_unmeetable_slo_says_no_layout_meets_it():
    _, (found,) = review(endpoint(workload(ttftMs=1, tpotMs=0.1)))
    assert "no layout of up to 16 replicas a role at tensorParallelSize 8 meets it" in (
        found.message
    )


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
    assert found.message.startswith("at 50 requests per second the model predicts saturated")
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
