"""Strings that must have a shape, refused with what the shape is in words rather than a regex."""

import re
from typing import Annotated

from pydantic import AfterValidator

from components.core.placeholders import holds_placeholder


def shaped(pattern: str, says: str, max_length: int | None = None) -> AfterValidator:
    """A validator refusing strings that don't fully match `pattern` (or are longer than
    `max_length`), with `says`: what is allowed, in words."""
    compiled = re.compile(pattern)

    def check(value: str) -> str:
        if holds_placeholder(value):
            return value  # refused or kept by check_placeholders, which knows where it is
        if (max_length is not None and len(value) > max_length) or not compiled.fullmatch(value):
            raise ValueError(says)
        return value

    return AfterValidator(check)


def shaped_str(pattern: str, says: str, max_length: int | None = None) -> object:
    return Annotated[str, shaped(pattern, says, max_length)]


def resource_id(prefix: str, what: str) -> object:
    """An AWS resource ID such as vpc-0123456789abcdef0: `prefix`, '-' and 8 to 17 hex digits
    (from the older 8-digit form to the current 17)."""
    return shaped_str(
        rf"{prefix}-[0-9a-f]{{8,17}}",
        f"must be {what}: {prefix}- and 8 to 17 lowercase hex digits, such as "
        f"{prefix}-0123456789abcdef0",
    )
