"""The Job's `vllm bench serve` runs (tools/bench/vllm_bench.py): one run per rate, a closed
loop for a concurrency workload, five minutes of arrivals past the layout's capacity, and the
results printed between the markers by a script that passes shellcheck."""

import shlex
from dataclasses import replace

from planner.measured import Load
from tests.planner.test_measured import PREDICTED
from tests.support import dev_endpoint, shellcheck_findings, with_endpoints
from tests.tools.bench.bench_job import bench, command, flag, job_of, objects
from tools.bench.vllm_bench import BEGIN_MARKER, END_MARKER, BenchRun, prompt_count


def test_the_script_prints_the_result_between_the_markers_and_passes_shellcheck(dev_job):
    script = job_of(objects(dev_job))["spec"]["template"]["spec"]["containers"][0]["command"][2]
    lines = script.splitlines()
    assert lines.index(f"echo '{BEGIN_MARKER}'") < lines.index("cat /tmp/results/run-1.json")
    assert lines.index("cat /tmp/results/run-1.json") < lines.index(f"echo '{END_MARKER}'")
    assert shellcheck_findings(lines) == ""


def test_a_rate_list_sweeps_one_run_per_rate(tmp_path, capsys):
    status, out, err = bench(
        tmp_path, capsys, None, "--endpoint", "dpd-test", "--account-id", "111122223333",
        "--rate", "1.5,3,4.5",
    )  # fmt: skip
    assert status == 0, err
    script = job_of(objects(out))["spec"]["template"]["spec"]["containers"][0]["command"][2]
    runs = [shlex.split(line) for line in script.splitlines() if line.startswith("vllm ")]
    assert [flag(r, "--request-rate") for r in runs] == ["1.5", "3", "4.5"]
    assert [flag(r, "--result-filename") for r in runs] == [
        "run-1.json",
        "run-2.json",
        "run-3.json",
    ]


def test_a_concurrency_workload_runs_a_closed_loop(tmp_path, capsys):
    endpoint = dev_endpoint()
    endpoint["workload"] = {"typicalInputTokens": 5000, "outputTokens": 512, "concurrency": 32}
    status, out, err = bench(
        tmp_path, capsys, with_endpoints(endpoint), "--endpoint", "dpd-test",
        "--account-id", "111122223333",
    )  # fmt: skip
    assert status == 0, err
    args = command(job_of(objects(out)))
    assert flag(args, "--max-concurrency") == "32" and "--request-rate" not in args
    assert int(flag(args, "--num-prompts")) >= 320


def test_a_rate_past_the_layouts_capacity_still_runs_five_minutes_of_arrivals():
    saturated = replace(PREDICTED, saturated=True, requests_per_second=2.0)
    load = Load(5000, 512, requests_per_second=6.0)
    assert prompt_count(load, saturated) >= 6 * 300
    # It drains at what the layout serves.
    assert BenchRun(load, 1800, saturated).seconds > 1800 / 2.0
