"""Measured runs correct the model by the geometric mean of measured / predicted, each run held
against the model at its own load."""

import math
from dataclasses import replace

import pytest

from components.endpoint.spec import Workload
from planner.measured import (
    Calibration,
    Load,
    MeasuredRun,
    calibrate,
    end_to_end_ms,
    workload_load,
)
from planner.predict import predict
from planner.scenario import Scenario

SCENARIO = Scenario.model_validate(
    {
        "model": {"name": "llama-3.3-70b"},
        "instanceType": "ml.p5.48xlarge",
        "engine": "vllm",
        "prefill": {"replicas": 1, "tensorParallel": 8},
        "decode": {"replicas": 1, "tensorParallel": 8},
        "workload": {"typicalInputTokens": 5000, "outputTokens": 512, "requestsPerSecond": 3},
    }
)
PREDICTED = predict(SCENARIO)


def run(ttft_ms: float, tpot_ms: float, day: str = "2026-12-05") -> MeasuredRun:
    return MeasuredRun(SCENARIO, day, ttft_ms, tpot_ms)


def test_one_run_makes_the_prediction_what_was_measured_at_its_load():
    calibration = calibrate([run(742.0, 16.8)])
    fixed = calibration.apply(PREDICTED)
    assert fixed.ttft_ms == pytest.approx(742.0) and fixed.tpot_ms == pytest.approx(16.8)
    # TTFT's parts keep their sum.
    assert fixed.queue_ms / fixed.ttft_ms == pytest.approx(PREDICTED.queue_ms / PREDICTED.ttft_ms)
    # An open loop's throughput is the load offered.
    assert fixed.requests_per_second == PREDICTED.requests_per_second


def test_runs_slow_and_fast_by_the_same_factor_cancel_out():
    slow, fast = PREDICTED.ttft_ms * 1.25, PREDICTED.ttft_ms / 1.25
    calibration = calibrate([run(slow, 16.8), run(fast, 16.8, "2026-12-06")])
    assert calibration.ttft_factor == pytest.approx(1.0)
    assert calibration.label() == "calibrated on 2 runs, 2026-12-06"


def test_a_closed_loop_serves_fewer_requests_when_slower():
    calibration = Calibration(runs=1, latest="2026-12-05", ttft_factor=2.0, tpot_factor=2.0)
    load = Load(5000, 512, concurrency=32)
    fixed = calibration.apply(PREDICTED, load)
    slower = end_to_end_ms(fixed, 512) / end_to_end_ms(PREDICTED, 512)
    assert fixed.requests_per_second == pytest.approx(PREDICTED.requests_per_second / slower)


def test_a_run_the_model_calls_saturated_gives_no_ttft_factor():
    saturated = replace(PREDICTED, saturated=True)
    calibration = calibrate([run(742.0, 16.8)], lambda _: saturated)
    assert calibration.ttft_factor is None
    assert calibration.tpot_factor == pytest.approx(16.8 / PREDICTED.tpot_ms)


def test_no_runs_no_calibration():
    assert calibrate([]) is None


def test_the_workloads_load_is_the_planners():
    assert workload_load(Workload(output_tokens=512), 4096) == Load(4096, 512, None, 1)
    assert workload_load(Workload(typical_input_tokens=5000), 4096) is None
    load = workload_load(Workload(typical_input_tokens=5000, output_tokens=512, concurrency=8), 1)
    assert (
        load.closed_loop and load.text() == "8 concurrent clients, prompts of 5,000 tokens, 512 out"
    )
    assert math.isclose(end_to_end_ms(PREDICTED, 1), PREDICTED.ttft_ms)
