"""Reading vLLM's result JSON and the Job's log: every figure, and a refusal naming the field
for anything else, never a crash."""

import json

import pytest

from tests.tools.bench.vllm_results import job_log, vllm_result
from tools.bench.vllm_result import ResultError, parse_result, result_documents


def parsed(document):
    return parse_result(document, "run.json")


def test_every_latency_figure_vllm_writes_is_read():
    result = parsed(vllm_result())
    assert result.latency["ttft"] == {
        "mean": 742.31, "median": 655.02, "std": 301.4, "p50": 655.02, "p90": 1180.7,
        "p99": 1893.2,
    }  # fmt: skip
    assert set(result.latency) == {"ttft", "tpot", "itl", "e2el"}
    assert (result.date, result.request_rate, result.max_concurrency) == ("2026-12-05", 3.0, None)
    assert result.metadata["dpd_endpoint"] == "dpd-test"


def test_a_closed_loop_run_has_no_rate():
    result = parsed(vllm_result(rate="inf", concurrency=32))
    assert result.load().concurrency == 32 and result.load().requests_per_second is None


def test_the_jobs_log_gives_back_each_result_between_the_markers():
    log = job_log(vllm_result(rate=1.5), vllm_result(rate=3.0))
    documents = result_documents(log, "bench.log")
    assert [where for where, _ in documents] == ["bench.log, result 1", "bench.log, result 2"]
    assert [d["request_rate"] for _, d in documents] == [1.5, 3.0]


def test_an_append_result_file_holds_one_result_a_line():
    text = json.dumps(vllm_result(rate=1.5)) + "\n" + json.dumps(vllm_result(rate=3.0)) + "\n"
    assert len(result_documents(text, "all.json")) == 2


def test_a_log_cut_short_is_refused():
    log = job_log(vllm_result()).rsplit("-----", 2)[0]
    with pytest.raises(ResultError, match="result 1 has no end marker"):
        result_documents(log, "bench.log")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"mean_ttft_ms": float("nan")}, "mean_ttft_ms: nan is not a measurement"),
        ({"mean_ttft_ms": "fast"}, "mean_ttft_ms: 'fast' is text, not a number"),
        ({"mean_tpot_ms": True}, "mean_tpot_ms: True is bool, not a number"),
        ({"completed": 0}, "completed: no request completed"),
        ({"completed": 2.5}, "completed: 2.5 is not a count"),
        ({"completed": 10**400}, "completed: a number of 401 digits"),
        ({"date": "yesterday"}, "date: 'yesterday' is not vLLM's YYYYMMDD-HHMMSS"),
        ({"request_rate": -1}, "request_rate: -1 is not a rate"),
        ({"max_concurrency": 0, "request_rate": "inf"}, "max_concurrency: 0 clients"),
        ({"burstiness": 0}, "burstiness: 0"),
    ],
)
def test_a_figure_that_is_not_one_is_refused_naming_it(change, message):
    with pytest.raises(ResultError, match=f"^run.json: {message}"):
        parsed({**vllm_result(), **change})


@pytest.mark.parametrize("missing", ["mean_ttft_ms", "backend", "completed", "date"])
def test_a_file_without_vllms_keys_is_not_vllms(missing):
    document = vllm_result()
    del document[missing]
    with pytest.raises(ResultError, match=f"{missing}: missing, so this is not a vllm bench"):
        parsed(document)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[1, 2]", "it is a list, vLLM writes an object"),
        ('"text"', "it is text"),
        ("{", "not JSON"),
        ("[" * 100_000 + "]" * 100_000, "nested too deep"),
        ("{}", "date: missing"),
        ("1" * 5000, "not JSON"),
    ],
)
def test_hostile_files_are_refused_in_one_line(text, message):
    with pytest.raises(ResultError, match=message):
        for where, document in result_documents(text, "x.json"):
            parse_result(document, where)


# Figures no run can have measured, each refused naming its key: what physics and the calendar
# allow, not what looks plausible.
IMPOSSIBLE = {
    "a negative TTFT": ({"mean_ttft_ms": -5}, "mean_ttft_ms: -5 ms is not a latency of this run"),
    "a zero mean TPOT": ({"mean_tpot_ms": 0}, "mean_tpot_ms: 0 ms is not a latency"),
    "a negative percentile figure": ({"p99_itl_ms": -0.1}, "p99_itl_ms: -0.1 ms"),
    "a TTFT of 1e308 ms": ({"mean_ttft_ms": 1e308}, "mean_ttft_ms: 1e\\+308 ms"),
    "a latency longer than the run": ({"p99_e2el_ms": 305_000}, "p99_e2el_ms: 305000 ms"),
    "a run of no time": ({"duration": 0}, "duration: 0 s is not a run's length"),
    "a run of negative time": ({"duration": -3}, "duration: -3 s"),
    "a run of a year": ({"duration": 3.2e7}, "duration: 3.2e\\+07 s"),
    "month 13": ({"date": "20261305-143012"}, "date: '20261305-143012' is not"),
    "the 31st of February": ({"date": "20260231-143012"}, "date: '20260231-143012' is not"),
    "a run before vLLM's benchmark": ({"date": "19991205-143012"}, "date: 1999-12-05 is not a day"),
    "a run decades ahead": ({"date": "20991205-143012"}, "date: 2099-12-05 is not a day"),
    "a throughput the run cannot have": ({"request_throughput": 1000}, "request_throughput: 1000"),
    "output that did not come": ({"output_throughput": 0}, "output_throughput: 0 a second"),
    "a 150th percentile": ({"p150_ttft_ms": 5}, "p150_ttft_ms: 150 is not a percentile"),
}


@pytest.mark.parametrize("case", IMPOSSIBLE)
def test_a_figure_no_run_can_have_measured_is_refused_naming_it(case):
    change, message = IMPOSSIBLE[case]
    with pytest.raises(ResultError, match=f"^run.json: {message}"):
        parsed({**vllm_result(), **change})


def test_a_run_a_few_days_ahead_of_the_clock_is_read():
    assert parsed(vllm_result(date="20261231-235959")).date == "2026-12-31"
