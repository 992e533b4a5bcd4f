"""The workload against the endpoint serving it: requests vLLM would refuse, and an SLO that
nothing predicts against."""

import pytest

from components.endpoint.workload import check_context, check_workload
from tests.components.endpoint.items import endpoint_item, endpoint_problems
from tests.components.endpoint.test_manifest import spec
from tests.support import by_code

# The dev endpoint serves 16,384 tokens.
REFUSED = {
    "inputs and outputs past maxModelLen": (
        {"typicalInputTokens": 16000, "outputTokens": 512},
        "workload.typicalInputTokens: 16,000 input and 512 output tokens make 16,512, "
        "more than maxModelLen 16,384, and vLLM refuses such a request; raise maxModelLen to at "
        "least 16,512, or give the lengths the endpoint serves",
    ),
    "a prompt of maxModelLen, which leaves no room for one token": (
        {"typicalInputTokens": 16384},
        "workload.typicalInputTokens: 16,384 input and at least 1 output tokens make "
        "16,385, more than maxModelLen 16,384, and vLLM refuses such a request; raise "
        "maxModelLen to at least 16,385, or give the lengths the endpoint serves",
    ),
    "outputs alone past it": (
        {"outputTokens": 20000},
        "workload.outputTokens: at least 1 input and 20,000 output tokens make 20,001, "
        "more than maxModelLen 16,384, and vLLM refuses such a request; raise maxModelLen to at "
        "least 20,001, or give the lengths the endpoint serves",
    ),
}


@pytest.mark.parametrize("case", REFUSED)
def test_a_workload_vllm_would_refuse_is_refused(case):
    workload, line = REFUSED[case]
    assert line in endpoint_problems(endpoint_item({"workload": workload}))


@pytest.mark.parametrize(
    "workload",
    [
        {"typicalInputTokens": 15872, "outputTokens": 512},  # exactly maxModelLen
        {"typicalInputTokens": 16383},
        {"requestsPerSecond": 3},
    ],
)
def test_a_workload_that_fits_the_context_passes(workload):
    assert check_workload(spec(workload=workload)) == []


def test_an_slo_without_output_tokens_is_warned_about_not_refused():
    found = check_workload(spec(workload={"requestsPerSecond": 3, "slo": {"ttftMs": 500}}))
    assert by_code(found) == {"slo-not-predicted": [("warning", "workload.outputTokens")]}


def test_an_slo_promising_nothing_is_warned_about():
    found = check_workload(spec(workload={"outputTokens": 256, "slo": {}}))
    assert by_code(found) == {"empty-slo": [("warning", "workload.slo")]}


def test_an_slo_with_output_tokens_is_predicted_and_says_nothing_here():
    assert check_workload(spec(workload={"outputTokens": 256, "slo": {"tpotMs": 40}})) == []


def test_a_threshold_no_prompt_can_reach_is_refused_naming_the_length_that_bounds_it():
    (found,) = check_context(spec(routingThreshold=16384))
    assert (found.code, found.field) == ("threshold-above-context", "routingThreshold")
    assert "when maxModelLen is 16,384" in found.message
    unset = spec(maxModelLen=131072, routingThreshold=200_000, workload={"outputTokens": 512})
    (found,) = check_context(unset, "the model's context")
    assert "when the model's context is 131,072" in found.message


def test_without_a_length_nothing_is_checked_until_the_models_is_known():
    assert check_context(spec(maxModelLen=None, routingThreshold=10**6)) == []
