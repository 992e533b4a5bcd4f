"""The public measurements the model is held against (calibration/cases.yaml)."""

import math

import pytest

from components.performance.calibration_cases import (
    CALIBRATION_DIR,
    compare,
    load_cases,
    median_error,
)


@pytest.fixture(scope="module")
def comparisons():
    return compare(load_cases())


def test_every_case_names_its_source_and_what_was_measured():
    for case in load_cases():
        assert case["source"]["url"].startswith("https://"), case["id"]
        assert case["measured"], case["id"]
        config = case["model"].get("configFile")
        assert config is None or (CALIBRATION_DIR / config).is_file(), case["id"]


def test_every_case_is_predicted_or_refused_with_the_key_that_stops_it(comparisons):
    found, refused = comparisons
    assert all(math.isfinite(c.predicted) and c.predicted > 0 for c in found)
    # The refused cases are layouts whose weights outgrow the GPUs (GB200 runs offloading to
    # Grace memory, which no HyperPod instance can).
    assert all(reason.startswith("scenario.") for _, reason in refused)
    assert len(refused) <= 3


def test_the_median_error_over_ttft_and_tpot_meets_the_target(comparisons):
    # The acceptance target: median |error| at most 30% over TTFT and TPOT.
    assert median_error(comparisons[0]) <= 0.30
