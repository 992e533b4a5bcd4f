"""The benchmark runs recorded beside a stack, `calibration/<stack>.yaml` (written by
`hyperpod-dpd bench results --record`), which correct its endpoints' predictions
(endpoint_predictions.py). A correction is advice: a file it cannot read is a warning only."""

import datetime
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import BeforeValidator, Field, ValidationError, model_validator

from components.core.spec import Spec
from components.core.user_files import MissingFileError, UnreadableFileError, read_text
from infra import clock
from infra.paths import ROOT

CALIBRATION_DIR = ROOT / "calibration"
# A run is under a kilobyte; thousands of them are still far below this.
MAX_CALIBRATION_BYTES = 4 * 2**20

Finite = Annotated[float, Field(allow_inf_nan=False)]
Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
# A benchmark lasts minutes; a week is past any sweep the bench Job runs.
LONGEST_RUN_SECONDS = 7 * 24 * 3600.0
# vLLM's `bench serve` is from 2023 (vllm 0.3); no run of it is older.
FIRST_RUN = datetime.date(2023, 1, 1)


def latency_problem(metric: str, statistic: str, ms: float, duration_s: float) -> str | None:
    """Why a latency figure vLLM would write cannot be one: a latency is at least 0, TTFT's
    and TPOT's means are more than 0 (every request waits for its first token, and a token
    after it), and none is longer than the run."""
    least = "more than 0" if statistic == "mean" and metric in ("ttft", "tpot") else "at least 0"
    if not (ms > 0 if least == "more than 0" else ms >= 0) or ms > duration_s * 1e3:
        return (
            f"{ms:g} ms is not a latency of this run: {least}, and no longer than its "
            f"{duration_s:g} s"
        )
    return None


def day_problem(day: datetime.date) -> str | None:
    """A run's day is after vLLM's benchmark existed and not in a later year than this one: a
    clock set wrong by days is no reason to refuse a run, a date decades away is no run's."""
    last = datetime.date(clock.utc_today().year + 1, 12, 31)
    if not FIRST_RUN <= day <= last:
        return f"{day} is not a day a run was measured: from {FIRST_RUN} to {last}"
    return None


def _day(value: Any) -> str:
    # YAML reads an unquoted 2026-12-05 as a date; fromisoformat refuses month 13.
    if not isinstance(value, datetime.date | str):
        raise ValueError(f"{value!r:.40} is not a day (YYYY-MM-DD)")
    day = value if isinstance(value, datetime.date) else datetime.date.fromisoformat(value)
    problem = day_problem(day)
    if problem:
        raise ValueError(problem)
    return day.isoformat()


Day = Annotated[str, BeforeValidator(_day)]


def calibration_path(stack: str) -> Path:
    return CALIBRATION_DIR / f"{stack}.yaml"


class RunLayout(Spec):
    prefill_replicas: int = Field(ge=1)
    decode_replicas: int = Field(ge=1)
    tensor_parallel_size: int = Field(ge=1)


class RunLoad(Spec):
    typical_input_tokens: int = Field(ge=1)
    output_tokens: int = Field(ge=1)
    requests_per_second: Positive | None = None
    concurrency: int | None = Field(None, ge=1)

    @model_validator(mode="after")
    def _open_or_closed(self) -> "RunLoad":
        if (self.requests_per_second is None) == (self.concurrency is None):
            raise ValueError("set requestsPerSecond or concurrency, one of them")
        return self


class RunMeasured(Spec):
    """vLLM's figures: each latency's `mean`, `median`, `std` and `p<N>`, in milliseconds."""

    completed: int = Field(ge=1)
    failed: int = Field(0, ge=0)
    duration_seconds: Annotated[float, Field(gt=0, le=LONGEST_RUN_SECONDS, allow_inf_nan=False)]
    request_throughput: Finite
    output_throughput: Finite
    ttft_ms: dict[str, Finite]
    tpot_ms: dict[str, Finite]
    itl_ms: dict[str, Finite] = {}
    # to_camel would write e2ElMs.
    e2el_ms: dict[str, Finite] = Field({}, alias="e2elMs")

    @model_validator(mode="after")
    def _latencies(self) -> "RunMeasured":
        for name, figures in (("ttftMs", self.ttft_ms), ("tpotMs", self.tpot_ms)):
            if "mean" not in figures:
                raise ValueError(f"{name} needs its mean")
        for metric in ("ttft", "tpot", "itl", "e2el"):
            for statistic, ms in getattr(self, f"{metric}_ms").items():
                problem = latency_problem(metric, statistic, ms, self.duration_seconds)
                if problem:
                    raise ValueError(f"{metric}Ms.{statistic}: {problem}")
        return self


class RecordedRun(Spec):
    date: Day
    # vLLM's stamp of the run's start (YYYYMMDD-HHMMSS): the same result is recorded once.
    started: str
    recorded: Day
    endpoint: str
    model: str
    instance_type: str
    image: str
    layout: RunLayout
    load: RunLoad
    measured: RunMeasured
    # What the model predicted when the run was recorded, for the record: corrections are
    # always taken against the model of the day.
    predicted: dict[str, Finite] = {}


class CalibrationFile(Spec):
    runs: list[RecordedRun] = []


class CalibrationFileError(ValueError):
    """A calibration file that is not one; the message names the file and the place."""


class _PlainYaml(yaml.SafeLoader):
    """The safe loader without aliases: the file is written by a program that never uses them,
    and a few of them nested expand without bound (an "alias bomb")."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            raise yaml.composer.ComposerError(
                None, None, "holds a YAML alias (*name)", self.peek_event().start_mark
            )
        return super().compose_node(parent, index)


def _problem(invalid: ValidationError) -> str:
    first = invalid.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    message = first["msg"].removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def load_calibration_file(path: Path) -> CalibrationFile:
    """The file's runs; an empty file when there is none. CalibrationFileError otherwise."""
    try:
        text = read_text(path, MAX_CALIBRATION_BYTES)
    except MissingFileError:
        return CalibrationFile()
    except UnreadableFileError as unreadable:
        raise CalibrationFileError(f"{path}: {unreadable}") from None
    try:
        document = yaml.load(text, Loader=_PlainYaml)
        if document is None:
            return CalibrationFile()
        if not isinstance(document, dict):
            raise CalibrationFileError(f"{path}: must be a mapping with `runs:`")
        return CalibrationFile.model_validate(document)
    except yaml.YAMLError as malformed:
        raise CalibrationFileError(f"{path}: not YAML ({str(malformed).splitlines()[0]})") from None
    except ValidationError as invalid:
        raise CalibrationFileError(f"{path}: {_problem(invalid)}") from None
    except RecursionError:
        raise CalibrationFileError(f"{path}: nested too deep to be a calibration file") from None


def read_runs(stack: str) -> tuple[list[RecordedRun], list[str]]:
    path = calibration_path(stack)
    try:
        recorded = load_calibration_file(path)
    except CalibrationFileError as unfit:
        relative = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        reason = str(unfit).removeprefix(f"{path}: ")
        return [], [f"{relative}: {reason}; the predictions are not corrected by measured runs"]
    return recorded.runs, []
