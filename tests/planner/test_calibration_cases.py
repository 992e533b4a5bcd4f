"""The measured runs the model is fitted on and held against (calibration/runs.yaml)."""

import math

import pytest

from planner.calibration_cases import CALIBRATION_DIR, compare, load_cases


@pytest.fixture(scope="module")
def comparisons():
    return compare(load_cases())


def test_every_run_names_its_source_publisher_date_and_what_was_measured():
    runs = load_cases()
    assert len({run["id"] for run in runs}) == len(runs)
    for run in runs:
        assert run["source"]["url"].startswith("https://"), run["id"]
        assert run["publisher"] and str(run["date"]), run["id"]
        assert run["measured"] and run["engine"] and run["gpu"], run["id"]
        config = run["model"].get("configFile")
        assert config is None or (CALIBRATION_DIR / config).is_file(), run["id"]


def test_every_run_is_predicted_or_refused_with_the_key_that_stops_it(comparisons):
    found, refused = comparisons
    # A figure is finite, but for the TTFT of an open-loop run the model puts past its
    # capacity (MLPerf's Server runs sit at their latency bound).
    for c in found:
        assert c.predicted > 0, c.case["id"]
        assert math.isfinite(c.predicted) or "tft" in c.metric.lower(), c.case["id"]
    # Refused: only layouts of Grace racks whose weights outgrow any HyperPod GPU.
    assert all(reason.startswith("scenario.") and "-gb" in case for case, reason in refused)
