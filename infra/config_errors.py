"""Problems with the stack configuration, each a line naming the config key at fault."""

import difflib
import re
import types
import typing
from collections.abc import Sequence

import pulumi
from pydantic import BaseModel, ValidationError

from components.core.findings import Finding, field_path
from components.core.terminal_text import one_line

PROJECT = "hyperpod-dpd"


class ConfigError(pulumi.RunError):
    """Raised before any resource is registered; Pulumi prints it without a traceback. Each
    problem is one line, whatever the value it quotes holds."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = [one_line(problem) for problem in problems]
        super().__init__("invalid stack configuration:\n" + "\n".join(self.problems))


def config_key(*path: str | int) -> str:
    """`hyperpod-dpd:endpoints[0].prefill.gpus` from ("endpoints", 0, "prefill", "gpus")."""
    return f"{PROJECT}:{field_path(*path)}"


def finding_line(key: str, finding: Finding) -> str:
    return f"{key}: {finding.message}"


def _model_at(model: type[BaseModel], loc: Sequence[str | int]) -> type[BaseModel] | None:
    """The settings model that the location `loc` points into, if it is one."""
    current: object = model
    for part in loc:
        if isinstance(part, int):
            continue
        if not (isinstance(current, type) and issubclass(current, BaseModel)):
            return None
        fields = {f.alias or name: f for name, f in current.model_fields.items()}
        if part not in fields:
            return None
        current = _element_type(fields[part].annotation)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _element_type(annotation: object) -> object:
    """The model inside Optional[...], list[...] or dict[str, ...], or the type itself."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType, list, dict):
        for arg in reversed(typing.get_args(annotation)):
            if arg is not type(None):
                return _element_type(arg)
    return annotation


def unknown_key(key: str, allowed: Sequence[str]) -> str:
    """The problem of a key that is not a setting, with the likeliest intended one."""
    name = key.rsplit(".", 1)[-1].rsplit(":", 1)[-1]
    close = difflib.get_close_matches(name, allowed, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"{key}: is not a known setting{hint}; allowed keys: {', '.join(allowed)}"


# pydantic's words for a shape, in the stack file's.
_PLAIN_WORDS = (
    (r"must be a valid dictionary or instance of \w+", "must be a mapping of settings"),
    (r"must be a valid dictionary", "must be a mapping"),
    (r"must be a valid list", "must be a list"),
    (r"must be a valid boolean(, unable to interpret input)?", "must be true or false"),
    (r"must be a valid string", "must be text (quote it)"),
    (r" after validation", ""),
    (r"^Input is not a valid IPv4 network", "must be an IPv4 CIDR block such as 10.0.0.0/16"),
    (r"^could not parse value and unit from byte string", "must be a size such as 8GiB"),
)
# Longer values are cut: the line must stay one readable line.
_SHOWN_CHARACTERS = 80


def _shown(value: object) -> str:
    """A value as the stack file writes it: true, null, 'text'."""
    if isinstance(value, bool) or value is None:
        return "null" if value is None else str(value).lower()
    text = repr(value)
    if len(text) <= _SHOWN_CHARACTERS:
        return text
    return f"{text[:_SHOWN_CHARACTERS]}... ({len(str(value)):,} characters)"


def plain_words(message: str) -> str:
    """pydantic's message in the stack file's words: "Input should be ..." reads "must be ..."."""
    message = re.sub(r"^\w+ should ", "must ", message.removeprefix("Value error, "))
    for pydantic_words, plain in _PLAIN_WORDS:
        message = re.sub(pydantic_words, plain, message)
    return message


def described(error: dict) -> str:
    """One pydantic error in the stack file's words: `'x' is not allowed; must be ...`."""
    if error["type"] == "missing":
        return "is required"
    message = plain_words(error["msg"])
    value = error["input"]
    if isinstance(value, (dict, list)) or message.startswith(repr(value)):
        return message
    return f"{_shown(value)} is not allowed; {message}"


# Where pydantic puts an error about a mapping's key rather than its value.
_KEY_OF_MAPPING = "[key]"


def _problem(error: dict, model: type[BaseModel]) -> str:
    loc = error["loc"]
    return keyed_problem(
        config_key(*(loc[:-1] if loc[-1:] == (_KEY_OF_MAPPING,) else loc)), error, model
    )


def keyed_problem(key: str, error: dict, model: type[BaseModel]) -> str:
    """One pydantic error of `model` as the line `key: what is wrong`."""
    loc = error["loc"]
    if error["type"] == "extra_forbidden":
        parent = _model_at(model, error["loc"][:-1])
        return unknown_key(key, _keys(parent))
    if error["type"] == "model_type" and (expected := _model_at(model, loc)):
        # Which mapping: `installed: v1.3.0-eksbuild.1` is answered with the keys it takes.
        return f"{key}: {described(error)} ({', '.join(_keys(expected))})"
    return f"{key}: {described(error)}"


def _keys(model: type[BaseModel] | None) -> list[str]:
    return [f.alias or n for n, f in model.model_fields.items()] if model else []


def validation_problems(error: ValidationError, model: type[BaseModel]) -> list[str]:
    """One line per pydantic error, keyed by the config key that holds the bad value."""
    # A default read from other keys (an endpoint's workerResources) is not made when one of
    # them is wrong; the line about that key is the one to read.
    return [
        _problem(e, model)
        for e in error.errors(include_url=False)
        if e["type"] != "default_factory_not_called"
    ]
