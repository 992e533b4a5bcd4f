"""A `vllm bench serve` result, read from the JSON vLLM writes or from the bench Job's log.

The keys are vLLM 0.19.0's (vllm/benchmarks/serve.py): `main_async` writes `date`
(YYYYMMDD-HHMMSS), `backend`, `label`, `model_id`, `tokenizer_id`, `num_prompts`, each
`--metadata KEY=VALUE`, `request_rate` ("inf" for all at once), `burstiness` and
`max_concurrency`, then `benchmark`'s `duration`, `completed`, `failed`, `total_input_tokens`,
`total_output_tokens`, `request_throughput`, `output_throughput`, and for each of
`--percentile-metrics` (ttft, tpot, itl, e2el) `mean_<m>_ms`, `median_<m>_ms`, `std_<m>_ms` and
`p<N>_<m>_ms` for each of `--metric-percentiles`. Python's json module writes NaN where no
request completed; such a figure is not a measurement.

Whatever the file holds, reading it ends in a result or a ResultError naming the field; a
figure no run can have measured (a latency below 0 or longer than the run, a throughput other
than what completed over it, a day that is no calendar day or years away) is refused too.
"""

import json
import math
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from infra.calibration_runs import LONGEST_RUN_SECONDS, day_problem, latency_problem
from planner.measured import Load
from tools.bench.vllm_bench import BEGIN_MARKER, END_MARKER

# A result is a few kilobytes; with --save-detailed, every request's text too.
MAX_RESULT_BYTES = 64 * 2**20
# The most results one file may hold: a sweep of the Job, or an --append-result file.
MOST_RESULTS = 100
LATENCY_KEY = re.compile(r"^(mean|median|std|p\d+(?:\.\d+)?)_(ttft|tpot|itl|e2el)_ms$")
# What vLLM always writes for a generation benchmark; a file without them is another tool's.
REQUIRED = (
    "date", "backend", "model_id", "completed", "duration", "total_input_tokens",
    "total_output_tokens", "request_throughput", "output_throughput", "mean_ttft_ms",
    "mean_tpot_ms",
)  # fmt: skip


class ResultError(ValueError):
    """A result refused; the message names the file, the field and why."""


@dataclass(frozen=True)
class VllmResult:
    where: str
    # vLLM's own stamp of the run's start, YYYYMMDD-HHMMSS, and its day, YYYY-MM-DD.
    started: str
    date: str
    model_id: str
    backend: str
    completed: int
    failed: int
    duration: float
    total_input_tokens: int
    total_output_tokens: int
    request_throughput: float
    output_throughput: float
    # Metric -> statistic (mean, median, std, p50, ...) -> milliseconds.
    latency: dict[str, dict[str, float]]
    # None: "inf", every request at once.
    request_rate: float | None
    max_concurrency: int | None
    burstiness: float
    ramp_up_strategy: str | None
    # The bench Job's --metadata: dpd_endpoint, dpd_model, ...
    metadata: dict[str, str]

    @property
    def mean_input_tokens(self) -> float:
        return self.total_input_tokens / self.completed

    @property
    def mean_output_tokens(self) -> float:
        return self.total_output_tokens / self.completed

    def load(self) -> Load:
        """The load the run offered, with the prompt and output lengths it measured."""
        return Load(
            input_tokens=max(1, round(self.mean_input_tokens)),
            output_tokens=max(1, round(self.mean_output_tokens)),
            requests_per_second=None if self.max_concurrency else self.request_rate,
            concurrency=self.max_concurrency,
        )


def _json(text: str, where: str) -> Any:
    try:
        # NaN, Infinity and -Infinity: json's extensions, which vLLM's json.dump can write.
        return json.loads(text, parse_constant=lambda _: math.nan)
    except RecursionError:
        raise ResultError(f"{where}: nested too deep to be a vllm bench serve result") from None
    except ValueError as malformed:
        # JSONDecodeError, and integers longer than Python converts (sys.int_info).
        raise ResultError(f"{where}: not JSON ({str(malformed).splitlines()[0]})") from None


def result_documents(text: str, source: str) -> list[tuple[str, Any]]:
    """The results between the Job's markers in its log, else one JSON document, else one a line."""
    if BEGIN_MARKER in text:
        found = []
        for n, block in enumerate(text.split(BEGIN_MARKER)[1:], start=1):
            body, ended, _ = block.partition(END_MARKER)
            if not ended:
                raise ResultError(
                    f"{source}: result {n} has no end marker ({END_MARKER!r}): the log was cut "
                    "short, or the run failed while writing it"
                )
            found.append((f"{source}, result {n}", _json(body, f"{source}, result {n}")))
    else:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) > 1 and all(line.lstrip().startswith("{") for line in lines):
            found = [
                (f"{source}, line {n}", _json(line, f"{source}, line {n}"))
                for n, line in enumerate(lines, start=1)
            ]
        else:
            found = [(source, _json(text, source))]
    if not found:
        raise ResultError(f"{source}: holds no result")
    if len(found) > MOST_RESULTS:
        raise ResultError(f"{source}: holds {len(found)} results; at most {MOST_RESULTS}")
    return found


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "text", type(None): "null"}.get(
        type(value), type(value).__name__
    )


def _number(document: dict[str, Any], key: str, where: str) -> float:
    value = document[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ResultError(f"{where}: {key}: {value!r:.60} is {_kind(value)}, not a number")
    try:
        number = float(value)
    except OverflowError:
        raise ResultError(f"{where}: {key}: a number of {len(str(value))} digits") from None
    if not math.isfinite(number):
        raise ResultError(
            f"{where}: {key}: {value} is not a measurement (vLLM writes NaN when no request "
            "completed)"
        )
    return number


def _count(document: dict[str, Any], key: str, where: str) -> int:
    value = _number(document, key, where)
    if value < 0 or value != int(value):
        raise ResultError(f"{where}: {key}: {value:g} is not a count")
    return int(value)


def _text(document: dict[str, Any], key: str, where: str) -> str:
    value = document[key]
    if not isinstance(value, str):
        raise ResultError(f"{where}: {key}: {value!r:.60} is {_kind(value)}, not text")
    return value


def _day(value: str, where: str) -> str:
    """`2026-12-05` from vLLM's `20261205-143000`, a day the run can have been on."""
    try:
        day = datetime.strptime(value, "%Y%m%d-%H%M%S").date()
    except ValueError:
        raise ResultError(f"{where}: date: {value!r:.40} is not vLLM's YYYYMMDD-HHMMSS") from None
    problem = day_problem(day)
    if problem:
        raise ResultError(f"{where}: date: {problem}")
    return day.isoformat()


def _check_physics(result: VllmResult) -> None:
    """What a run can have measured: latencies within it, throughput what completed over it."""
    where, duration = result.where, result.duration
    if not 0 < duration <= LONGEST_RUN_SECONDS:
        raise ResultError(
            f"{where}: duration: {duration:g} s is not a run's length: more than 0, at most "
            f"{LONGEST_RUN_SECONDS / 86400:g} days"
        )
    for metric, figures in result.latency.items():
        for statistic, ms in figures.items():
            problem = latency_problem(metric, statistic, ms, duration)
            if problem:
                raise ResultError(f"{where}: {statistic}_{metric}_ms: {problem}")
    for key, count, throughput in (
        ("request_throughput", result.completed, result.request_throughput),
        ("output_throughput", result.total_output_tokens, result.output_throughput),
    ):
        # vLLM divides what completed by the run's duration (serve.py, `calculate_metrics`).
        if abs(throughput - count / duration) > 0.01 * count / duration + 1e-9:
            raise ResultError(
                f"{where}: {key}: {throughput:g} a second is not what completed over the run "
                f"({count:,} in {duration:g} s is {count / duration:.4g})"
            )


def _request_rate(document: dict[str, Any], where: str) -> float | None:
    value = document.get("request_rate", "inf")
    if value == "inf":
        return None
    rate = _number(document, "request_rate", where)
    if rate <= 0:
        raise ResultError(f"{where}: request_rate: {rate:g} is not a rate")
    return rate


def parse_result(document: Any, where: str) -> VllmResult:
    if not isinstance(document, dict):
        raise ResultError(
            f"{where}: not a vllm bench serve result: it is {_kind(document)}, vLLM writes an "
            "object"
        )
    for key in REQUIRED:
        if key not in document:
            raise ResultError(
                f"{where}: {key}: missing, so this is not a vllm bench serve result (vLLM "
                "writes it with --save-result, with the ttft and tpot metrics selected)"
            )
    latency: dict[str, dict[str, float]] = {}
    for key in document:
        if matched := LATENCY_KEY.match(key):
            statistic, metric = matched.groups()
            if statistic[0] == "p" and not 0 < float(statistic[1:]) <= 100:
                raise ResultError(f"{where}: {key}: {statistic[1:]} is not a percentile")
            latency.setdefault(metric, {})[statistic] = _number(document, key, where)
    completed = _count(document, "completed", where)
    failed = _count(document, "failed", where) if "failed" in document else 0
    if completed == 0:
        raise ResultError(
            f"{where}: completed: no request completed ({failed} failed), so nothing was "
            "measured; the Job's log says why"
        )
    concurrency = document.get("max_concurrency")
    if concurrency is not None:
        concurrency = _count(document, "max_concurrency", where)
        if concurrency < 1:
            raise ResultError(f"{where}: max_concurrency: 0 clients send nothing")
    burstiness = _number(document, "burstiness", where) if "burstiness" in document else 1.0
    if burstiness <= 0:
        raise ResultError(f"{where}: burstiness: {burstiness:g}; vLLM takes more than 0")
    ramp = document.get("ramp_up_strategy")
    # JSON's keys are text.
    metadata = {k: v for k, v in document.items() if k.startswith("dpd_") and isinstance(v, str)}
    started = _text(document, "date", where)
    result = VllmResult(
        where=where,
        started=started,
        date=_day(started, where),
        model_id=_text(document, "model_id", where),
        backend=_text(document, "backend", where),
        completed=completed,
        failed=failed,
        duration=_number(document, "duration", where),
        total_input_tokens=_count(document, "total_input_tokens", where),
        total_output_tokens=_count(document, "total_output_tokens", where),
        request_throughput=_number(document, "request_throughput", where),
        output_throughput=_number(document, "output_throughput", where),
        latency=latency,
        request_rate=_request_rate(document, where),
        max_concurrency=concurrency,
        burstiness=burstiness,
        ramp_up_strategy=ramp if isinstance(ramp, str) else None,
        metadata=metadata,
    )
    _check_physics(result)
    return result
