"""What a check has to say about a setting: an error that stops the deployment, or advice."""

from dataclasses import dataclass
from typing import Literal

Level = Literal["error", "warning", "info"]


@dataclass(frozen=True)
class Finding:
    level: Level
    code: str
    # Path of the offending setting relative to the thing checked, e.g. "prefill.gpus".
    field: str
    message: str


def error(code: str, field: str, message: str) -> Finding:
    return Finding("error", code, field, message)


def warning(code: str, field: str, message: str) -> Finding:
    return Finding("warning", code, field, message)


def field_path(*parts: str | int) -> str:
    """`endpoints[0].prefill.gpus` from ("endpoints", 0, "prefill", "gpus")."""
    path = ""
    for part in parts:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else part
    return path


def info(code: str, field: str, message: str) -> Finding:
    return Finding("info", code, field, message)
