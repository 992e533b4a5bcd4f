"""The base of every typed settings model: camelCase keys, unknown keys refused, immutable,
and numbers that are numbers."""

import re
import types
import typing
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationInfo, field_validator
from pydantic.alias_generators import to_camel

# No setting, and no model's config.json, counts anything near this.
WHOLE_NUMBER_LIMIT = 2**63
# The texts Pulumi's own Config.get_bool reads as a boolean (pulumi/config.py, _get_bool), as
# `pulumi config set --type string` would leave them.
BOOLEAN_TEXTS = {"true": True, "True": True, "false": False, "False": False}


def _accepted(annotation: object) -> set[object]:
    """The plain types and literal values a field's annotation admits, through Optional."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):
        return set().union(*(_accepted(arg) for arg in typing.get_args(annotation)))
    if origin is Literal:
        return set(typing.get_args(annotation))
    if origin is typing.Annotated:
        return _accepted(typing.get_args(annotation)[0])
    return {annotation}


class Spec(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        alias_generator=to_camel,
        populate_by_name=True,
    )

    @field_validator("*", mode="before")
    @classmethod
    def _numbers_are_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        """pydantic's lax mode reads `true` as 1 and accepts a quoted "8" for an int but not
        for `Literal[1, 2, 4, 8]`. A count is never true or false; a quoted whole number is
        read as that number wherever a whole number goes, for every such key alike."""
        if info.field_name is None:
            return value
        accepted = _accepted(cls.model_fields[info.field_name].annotation)
        numeric = {a for a in accepted if a in (int, float) or type(a) is int}
        if bool in accepted and not numeric:
            return _a_switch(value)
        if not numeric or bool in accepted:
            return value
        if isinstance(value, bool):
            raise ValueError("must be a number, not true or false")
        whole = {a for a in numeric if a is int or type(a) is int}
        if whole and isinstance(value, str) and re.fullmatch(r"\s*[0-9]+\s*", value):
            value = int(value.strip())
        if whole and type(value) in (int, float) and abs(value) >= WHOLE_NUMBER_LIMIT:
            # Sizing arithmetic turns such numbers into floats, which overflow; a literal's own
            # message for them reads "Unable to parse input string".
            raise ValueError("must be a number below 2^63")
        return value


def _a_switch(value: Any) -> Any:
    """pydantic's lax mode reads 1, 0, "yes", "on" or "off" as a boolean; Pulumi's
    Config.get_bool takes only true and false, so a switch here takes the same."""
    if value is None or isinstance(value, (bool, dict, list)):
        return value
    if isinstance(value, str) and value in BOOLEAN_TEXTS:
        return BOOLEAN_TEXTS[value]
    raise ValueError("must be true or false")


def numbers_as_text(value: Any) -> Any:
    """A mapping's number values as text: YAML reads `tier: 1` as a number, and so does
    `pulumi config set --path` write one, where Kubernetes and SageMaker take only text."""
    if isinstance(value, dict):
        return {
            k: str(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v
            for k, v in value.items()
        }
    return value
