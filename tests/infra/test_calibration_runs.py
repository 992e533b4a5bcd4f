"""calibration/<stack>.yaml as the program reads it: runs of the endpoint's own model, instance
type and image correct it; anything the file holds that is not runs is a warning, never a
refusal or a crash."""

import pytest
import yaml

from components.endpoint.spec import EndpointSpec
from components.model.catalog import MODEL_CATALOG
from infra import calibration_runs
from infra.calibration_runs import RecordedRun, read_runs
from infra.endpoint_predictions import endpoint_calibration
from tests.support import dev_config, dev_endpoint, settings_of

SPEC = EndpointSpec.model_validate(dev_endpoint())
LLAMA = MODEL_CATALOG["llama-3.3-70b"]


@pytest.fixture(autouse=True)
def calibration_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(calibration_runs, "CALIBRATION_DIR", tmp_path)
    return tmp_path


def measured(ttft_ms: float) -> dict:
    """What vLLM measured, but for the mean TTFT given."""
    return {
        "completed": 900,
        "durationSeconds": 305,
        "requestThroughput": 2.95,
        "outputThroughput": 1512,
        "ttftMs": {"mean": ttft_ms},
        "tpotMs": {"mean": 16.8},
    }


def write_runs(folder, *runs: RecordedRun) -> None:
    documents = [recorded.model_dump(by_alias=True) for recorded in runs]
    (folder / "dev.yaml").write_text(yaml.safe_dump({"runs": documents}))


def run(**changes) -> RecordedRun:
    fields = {
        "date": "2026-12-05", "started": "20261205-143012", "recorded": "2026-12-06",
        "endpoint": "dpd-test", "model": "Llama-3.3-70B-Instruct",
        "instanceType": "ml.p5.48xlarge", "image": SPEC.image,
        "layout": {"prefillReplicas": 1, "decodeReplicas": 1, "tensorParallelSize": 8},
        "load": {"typicalInputTokens": 5000, "outputTokens": 512, "requestsPerSecond": 3},
        "measured": measured(742),
    }  # fmt: skip
    return RecordedRun.model_validate({**fields, **changes})


def test_the_endpoints_own_runs_correct_it():
    calibration = endpoint_calibration(SPEC, LLAMA, [run()])
    assert calibration is not None and calibration.runs == 1


@pytest.mark.parametrize(
    "other",
    [
        {"model": "Llama-3.1-8B-Instruct"},
        {"instanceType": "ml.p5en.48xlarge"},
        {"endpoint": "another"},
        {"image": "lmcache/vllm-openai:v0.4.3"},
    ],
)
def test_never_across_models_instance_types_endpoints_or_images(other):
    assert endpoint_calibration(SPEC, LLAMA, [run(**other)]) is None


def test_no_file_no_runs_and_no_warning():
    assert read_runs("dev") == ([], [])


@pytest.mark.parametrize(
    ("text", "warning"),
    [
        ("runs: [", "not YAML"),
        ("- a\n- b\n", "must be a mapping with `runs:`"),
        ("runs: [{date: 2026-12-05}]\n", "runs.0.started: Field required"),
        ("a: &a [1]\nb: *a\n", "holds a YAML alias"),
        ("[" * 5000 + "]" * 5000, ""),
    ],
)
def test_a_file_that_is_not_runs_is_a_warning(calibration_dir, text, warning):
    (calibration_dir / "dev.yaml").write_text(text)
    runs, warnings = read_runs("dev")
    assert runs == []
    (line,) = warnings
    assert warning in line and line.endswith("the predictions are not corrected by measured runs")


def test_a_nan_figure_is_not_a_run(calibration_dir):
    (calibration_dir / "dev.yaml").write_text(
        "runs:\n- date: 2026-12-05\n  started: 20261205-143012\n  recorded: 2026-12-06\n"
        "  endpoint: dpd-test\n  model: m\n  instanceType: ml.p5.48xlarge\n  image: i\n"
        "  layout: {prefillReplicas: 1, decodeReplicas: 1, tensorParallelSize: 8}\n"
        "  load: {typicalInputTokens: 5000, outputTokens: 512, requestsPerSecond: 3}\n"
        "  measured: {completed: 9, durationSeconds: 3, requestThroughput: 3,"
        " outputThroughput: 1536, ttftMs: {mean: .nan}, tpotMs: {mean: 16}}\n"
    )
    runs, (warning,) = read_runs("dev")
    assert runs == [] and "measured.ttftMs.mean" in warning


def test_the_program_warns_on_the_slo_by_the_calibrated_prediction(calibration_dir):
    """pulumi preview's path: a run measured slow makes the SLO warning, and says so."""
    write_runs(calibration_dir, run(measured=measured(4100)))
    warnings = [w for w in settings_of(dev_config(), stack="dev").warnings if "slo" in w.lower()]
    (warning,) = [w for w in warnings if "workload" in w]
    assert "the model (calibrated on 1 run, 2026-12-05) predicts p90 TTFT " in warning


def test_a_run_far_from_the_model_corrects_it_at_most_fourfold_and_says_so(calibration_dir):
    """A run hundreds of times slower than predicted measured something else: the correction
    is held at four times, and a warning names the runs to check."""
    write_runs(calibration_dir, run(measured=measured(250_000)))
    checked = settings_of(dev_config(), stack="dev")
    (line,) = [w for w in checked.warnings if "the correction is held" in w]
    assert "TTFT" in line and "x the model's" in line
    (ep,) = checked.predictions
    assert ep is not None and ep.calibration is not None and ep.calibration.ttft_factor == 4.0


def recorded(**changes) -> dict:
    """A run as `bench results --record` writes it, with `changes` to its measured figures."""
    run = {
        "date": "2026-12-05", "started": "20261205-143012", "recorded": "2026-12-06",
        "endpoint": "dpd-test", "model": "Llama-3.3-70B-Instruct",
        "instanceType": "ml.p5.48xlarge", "image": SPEC.image,
        "layout": {"prefillReplicas": 1, "decodeReplicas": 1, "tensorParallelSize": 8},
        "load": {"typicalInputTokens": 5000, "outputTokens": 512, "requestsPerSecond": 3},
        "measured": {"completed": 900, "durationSeconds": 305, "requestThroughput": 2.95,
                     "outputThroughput": 1512, "ttftMs": {"mean": 4100}, "tpotMs": {"mean": 17}},
    }  # fmt: skip
    run["measured"] |= changes.pop("measured", {})
    return run | changes


# A run edited by hand or by a hostile author: figures no run can have measured are a warning
# naming the field, and correct nothing.
POISONED = {
    "a negative TTFT": ({"measured": {"ttftMs": {"mean": -5}}}, "ttftMs.mean: -5 ms is not"),
    "a zero TPOT": ({"measured": {"tpotMs": {"mean": 0}}}, "tpotMs.mean: 0 ms"),
    "a TTFT of 1e308 ms": ({"measured": {"ttftMs": {"mean": 1e308}}}, "ttftMs.mean: 1e+308 ms"),
    "a run of no time": ({"measured": {"durationSeconds": 0}}, "measured.durationSeconds"),
    "a run of negative time": ({"measured": {"durationSeconds": -1}}, "measured.durationSeconds"),
    "month 13": ({"date": "2026-13-05"}, "runs.0.date"),
    "a day that is no day": ({"recorded": "yesterday"}, "runs.0.recorded"),
    "a run decades ahead": ({"date": "2099-12-05"}, "2099-12-05 is not a day a run was measured"),
}


@pytest.mark.parametrize("case", POISONED)
def test_a_poisoned_run_is_a_warning_and_corrects_nothing(calibration_dir, case):
    changes, said = POISONED[case]
    (calibration_dir / "dev.yaml").write_text(yaml.safe_dump({"runs": [recorded(**changes)]}))
    runs, (warning,) = read_runs("dev")
    assert runs == [] and said in warning
