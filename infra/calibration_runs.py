"""The benchmark runs recorded beside a stack, `calibration/<stack>.yaml`, as plain data.

`hyperpod-dpd bench results --record` appends a run there: the endpoint's layout, the
image, the day, the load and what vLLM measured. The program reads the file (`pulumi preview`
and the render alike), and infra/endpoint_predictions.py corrects each endpoint's prediction by
the runs of that endpoint on the same model, instance type and image. A correction is advice
like the prediction it corrects: a file it cannot read is a warning, never a refusal.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Annotated, Any

import yaml
from pydantic import Field, ValidationError, field_validator, model_validator

from components.core.spec import Spec
from components.core.user_files import MissingFileError, UnreadableFileError, read_text
from infra.paths import ROOT

CALIBRATION_DIR = ROOT / "calibration"
# A run is under a kilobyte; thousands of them are still far below this.
MAX_CALIBRATION_BYTES = 4 * 2**20

Finite = Annotated[float, Field(allow_inf_nan=False)]
Positive = Annotated[float, Field(gt=0, allow_inf_nan=False)]
Day = Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$")]


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
    def _open_or_closed(self) -> RunLoad:
        if (self.requests_per_second is None) == (self.concurrency is None):
            raise ValueError("set requestsPerSecond or concurrency, one of them")
        return self


class RunMeasured(Spec):
    """vLLM's figures: each latency's `mean`, `median`, `std` and `p<N>`, in milliseconds."""

    completed: int = Field(ge=1)
    failed: int = Field(0, ge=0)
    duration_seconds: Positive
    request_throughput: Finite
    output_throughput: Finite
    ttft_ms: dict[str, Finite]
    tpot_ms: dict[str, Finite]
    itl_ms: dict[str, Finite] = {}
    # to_camel would write e2ElMs.
    e2el_ms: dict[str, Finite] = Field({}, alias="e2elMs")

    @model_validator(mode="after")
    def _means(self) -> RunMeasured:
        for name, figures in (("ttftMs", self.ttft_ms), ("tpotMs", self.tpot_ms)):
            if "mean" not in figures:
                raise ValueError(f"{name} needs its mean")
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

    @field_validator("date", "recorded", mode="before")
    @classmethod
    def _day(cls, value: Any) -> Any:
        # YAML reads an unquoted 2026-12-05 as a date.
        return value.isoformat() if isinstance(value, datetime.date) else value


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
    return f"{where}: {first['msg']}" if where else first["msg"]


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
    except yaml.YAMLError as malformed:
        raise CalibrationFileError(f"{path}: not YAML ({str(malformed).splitlines()[0]})") from None
    except RecursionError:
        raise CalibrationFileError(f"{path}: nested too deep to be a calibration file") from None
    if document is None:
        return CalibrationFile()
    if not isinstance(document, dict):
        raise CalibrationFileError(f"{path}: must be a mapping with `runs:`")
    try:
        return CalibrationFile.model_validate(document)
    except ValidationError as invalid:
        raise CalibrationFileError(f"{path}: {_problem(invalid)}") from None
    except RecursionError:
        raise CalibrationFileError(f"{path}: nested too deep to be a calibration file") from None


def read_runs(stack: str) -> tuple[list[RecordedRun], list[str]]:
    """The stack's recorded runs, and a warning if its file can't be read."""
    path = calibration_path(stack)
    try:
        recorded = load_calibration_file(path)
    except CalibrationFileError as unfit:
        relative = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        reason = str(unfit).removeprefix(f"{path}: ")
        return [], [f"{relative}: {reason}; the predictions are not corrected by measured runs"]
    return recorded.runs, []
