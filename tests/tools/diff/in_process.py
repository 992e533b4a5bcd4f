"""Two stack configurations rendered in this process and compared, as `infra diff` compares
the renders of two revisions: fast, and with no git."""

from __future__ import annotations

from typing import Any

from tests.support import render
from tools.diff.stack_diff import Change, compare


def resources(config: dict[str, Any]) -> list[dict[str, Any]]:
    return [r.as_json() for r in render(config, stack="dev").resources]


def changes(base: dict[str, Any], head: dict[str, Any]) -> list[Change]:
    return compare(resources(base), resources(head))


def by_name(found: list[Change], type_: str) -> dict[str, Change]:
    return {c.name: c for c in found if c.type == type_}
