"""`bench results`: measured against predicted at the run's load, the refusals, and --record
followed by `plan --stack dev` showing the corrected, labelled prediction."""

import json
import re

import pytest
import yaml

from components.endpoint.spec import EndpointSpec
from components.sizing.endpoint_architecture import endpoint_architecture
from infra import calibration_runs
from planner.endpoint_scenario import scenario_from_endpoint
from planner.predict import predict
from tests.support import dev_endpoint
from tests.tools.bench.vllm_results import DEV_METADATA, job_log, vllm_result
from tools.cli import main


def dev_prediction():
    """The planner's figures for the dev endpoint at its workload, which the run measured."""
    spec = EndpointSpec.model_validate(dev_endpoint())
    return predict(scenario_from_endpoint(spec, endpoint_architecture(spec)))


@pytest.fixture(autouse=True)
def calibration_dir(tmp_path, monkeypatch):
    folder = tmp_path / "calibration"
    monkeypatch.setattr(calibration_runs, "CALIBRATION_DIR", folder)
    return folder


def results(tmp_path, capsys, text, *flags):
    path = tmp_path / "bench.log"
    path.write_text(text)
    argv = ["bench", "results", "--stack", "dev", "--endpoint", "dpd-test", "--result", str(path)]
    status = main([*argv, *flags])
    out, err = capsys.readouterr()
    return status, out, err


def row(out: str, metric: str, statistic: str) -> list[str]:
    for line in out.splitlines():
        cells = line.split()
        if cells[:2] == [metric, statistic]:
            return cells
    raise AssertionError(f"no {metric} {statistic} row in:\n{out}")


def test_measured_against_predicted_for_ttft_and_tpot_with_the_errors(tmp_path, capsys):
    status, out, err = results(tmp_path, capsys, job_log(vllm_result()))
    assert status == 0, err
    # TTFT: measured 742 ms against the model's mean, and its signed error.
    assert row(out, "TTFT", "mean")[2:4] == ["742", "ms"]
    predicted = dev_prediction()
    ttft = row(out, "TTFT", "mean")
    assert ttft[4:6] == [f"{predicted.ttft_ms:,.0f}", "ms"]
    assert ttft[6] == f"{(predicted.ttft_ms - 742) / 742:+.0%}"
    tpot = row(out, "TPOT", "mean")
    assert tpot[2:4] == ["16.8", "ms"] and tpot[6] == f"{(predicted.tpot_ms - 16.8) / 16.8:+.0%}"
    # Every percentile vLLM wrote is shown, measured; the model predicts TTFT's and ITL's.
    for statistic in ("median", "p50", "p90", "p99"):
        assert row(out, "TTFT", statistic)[6].endswith("%")
        assert row(out, "ITL", statistic)[6].endswith("%")
        assert row(out, "TPOT", statistic)[4] == "-"
    assert row(out, "TTFT", "p90")[4:6] == [f"{predicted.ttft_at(90):,.0f}", "ms"]
    assert "SLO TTFT <= 2,000 ms at p90: measured p90 1,181 ms, met" in out
    # tpotMs is judged on the time between tokens, as the planner judges it.
    assert "SLO ITL <= 50 ms at p90: measured p90 21.9 ms, met" in out
    assert row(out, "throughput", "requests/s")[2:5] == ["2.954", "3", "+2%"]
    assert row(out, "throughput", "output")[2:4] == ["tok/s", "1,512"]


def test_a_plain_result_file_is_read_too(tmp_path, capsys):
    status, out, _ = results(tmp_path, capsys, json.dumps(vllm_result()))
    assert status == 0 and row(out, "TTFT", "mean")[2] == "742"


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({**vllm_result(), "dpd_model": "Llama-3.1-8B"}, "dpd_model: the run is 'Llama-3.1-8B'"),
        ({**vllm_result(metadata={}), "model_id": "m/8B"}, "model_id: 'm/8B' is not the model"),
        (vllm_result(input_tokens=1024), "total_input_tokens: 1,024 tokens a request, where"),
        (vllm_result(output_tokens=128), "total_output_tokens: 128 tokens a request"),
        (vllm_result(rate="inf"), "request_rate: inf sends every request at once"),
        (vllm_result(rate=3.0, concurrency=8), "max_concurrency: 8 clients and a request rate"),
        ({**vllm_result(), "burstiness": 0.5}, "burstiness: 0.5"),
        ({"completed": 1}, "missing, so this is not a vllm bench serve result"),
    ],
)  # fmt: skip
def test_results_that_are_not_this_endpoints_load_are_refused_naming_the_field(
    tmp_path, capsys, document, message
):
    status, out, err = results(tmp_path, capsys, job_log(document), "--record")
    assert status == 2 and out == ""
    assert message in err and "Traceback" not in err
    assert not calibration_runs.calibration_path("dev").exists()


def test_a_missing_or_unreadable_result_is_refused(tmp_path, capsys):
    status = main(["bench", "results", "--endpoint", "dpd-test", "--result", str(tmp_path)])
    assert status == 2 and "--result:" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exited:
        main(["bench", "results", "--endpoint", "dpd-test"])
    assert exited.value.code == 2
    assert "required: --result" in capsys.readouterr().err


def test_record_then_plan_shows_the_corrected_labelled_prediction(tmp_path, capsys):
    status, out, err = results(tmp_path, capsys, job_log(vllm_result()), "--record")
    assert status == 0, err
    assert "Recorded 1 run in" in out
    recorded = yaml.safe_load(calibration_runs.calibration_path("dev").read_text())
    (run,) = recorded["runs"]
    assert run["image"] == DEV_METADATA["dpd_image"]
    assert run["layout"] == {"prefillReplicas": 1, "decodeReplicas": 1, "tensorParallelSize": 8}
    load = {"typicalInputTokens": 5000, "outputTokens": 512, "requestsPerSecond": 3.0}
    assert run["load"] == load
    assert run["date"] == "2026-12-05" and run["measured"]["ttftMs"]["p90"] == 1180.7

    assert main(["plan", "--stack", "dev"]) == 0
    plan = capsys.readouterr().out
    predicted = dev_prediction()
    factors = f"TTFT x{742 / predicted.ttft_ms:.2f}, TPOT x{16.8 / predicted.tpot_ms:.2f}"
    assert f"calibrated on 1 run, 2026-12-05: {factors} of the model's figures" in plan
    # The corrected figures are the measured means: the run was at the workload's own load.
    assert "mean TTFT 742 ms, mean TPOT 16.8 ms" in plan


def test_the_same_result_is_recorded_once(tmp_path, capsys):
    log = job_log(vllm_result())
    results(tmp_path, capsys, log, "--record")
    status, out, _ = results(tmp_path, capsys, log, "--record")
    assert status == 0 and "Recorded 0 runs in" in out and "(1 already there)" in out
    recorded = yaml.safe_load(calibration_runs.calibration_path("dev").read_text())
    assert len(recorded["runs"]) == 1


def test_a_sweep_is_compared_at_each_rate(tmp_path, capsys):
    log = job_log(vllm_result(rate=1.5, date="20261205-140000"), vllm_result(rate=3.0))
    status, out, err = results(tmp_path, capsys, log)
    assert status == 0, err
    assert "bench.log, result 1: 1.5 requests/s" in out
    assert "bench.log, result 2: 3 requests/s" in out


def test_a_broken_calibration_file_is_not_overwritten(tmp_path, capsys, calibration_dir):
    calibration_dir.mkdir()
    broken = calibration_dir / "dev.yaml"
    broken.write_text("runs: [{date: 1}]\n")
    status, _, err = results(tmp_path, capsys, job_log(vllm_result()), "--record")
    assert status == 2 and "--record:" in err
    assert broken.read_text() == "runs: [{date: 1}]\n"


def test_a_run_far_from_the_prediction_is_recorded_only_when_confirmed(tmp_path, capsys):
    slow = vllm_result(latencies={"ttft": {"mean": 9000.0}, "tpot": {"mean": 16.8}})
    status, out, err = results(tmp_path, capsys, job_log(slow), "--record")
    assert status == 2 and "TTFT" in out
    assert re.search(
        r"mean_ttft_ms: 9,000 ms measured is [\d.]+ times the [\d,.]+ ms the model", err
    )
    assert err.rstrip().endswith("then record it with --record --yes")
    assert not calibration_runs.calibration_path("dev").exists()
    status, out, _ = results(tmp_path, capsys, job_log(slow), "--record", "--yes")
    assert status == 0 and "Recorded 1 run in" in out


def test_bench_runs_after_the_slowest_run_a_file_may_hold(tmp_path, capsys):
    """A TTFT as long as the run itself, recorded, still leaves the Job's sizing finite."""
    slowest = vllm_result(latencies={"ttft": {"mean": 304_700.0}, "tpot": {"mean": 595.0}})
    assert results(tmp_path, capsys, job_log(slowest), "--record", "--yes")[0] == 0
    flags = ["--endpoint", "dpd-test", "--account-id", "111122223333"]
    assert main(["bench", "--stack", "dev", *flags]) == 0
