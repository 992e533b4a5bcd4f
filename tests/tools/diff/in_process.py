"""Two stack configurations rendered in this process and compared, as `infra diff` compares
the renders of two revisions: fast, and with no git.

A render depends on its configuration alone (every test runs on the same day), so each
configuration renders once per process: several tests compare against the same base.
"""

import copy
import functools
import json
from typing import Any

from infra import program
from infra.settings import Settings
from tests.support import run_program
from tools.diff.diff_report import text_report
from tools.diff.endpoint_swaps import Plans, replacement_plans
from tools.diff.stack_diff import Change, compare
from tools.render.stack_config import to_stack_config
from tools.reports.sizing_report import sizing_document


def rendered(config: dict[str, Any]) -> tuple[list[dict[str, Any]], Plans]:
    """The render's resources.json, and its replacement plans as sizing.json carries them."""
    # Keyed by the configuration as written, its order kept; a copy, which a test may change.
    return copy.deepcopy(_rendered(json.dumps(config)))


@functools.cache
def _rendered(config_json: str) -> tuple[list[dict[str, Any]], Plans]:
    config = json.loads(config_json)
    settings: list[Settings] = []
    result = run_program("dev", to_stack_config(config), lambda: settings.append(program.main()))
    document = sizing_document(settings[0].sizing, rollouts=settings[0].rollouts)
    return [r.as_json() for r in result.resources], replacement_plans(document)


def resources(config: dict[str, Any]) -> list[dict[str, Any]]:
    return rendered(config)[0]


def changes(base: dict[str, Any], head: dict[str, Any]) -> list[Change]:
    return compare(resources(base), resources(head))


def report(base: dict[str, Any], head: dict[str, Any]) -> str:
    """The text `infra diff` prints."""
    after, plans = rendered(head)
    return text_report("dev", "main", compare(resources(base), after), [], plans)


def by_name(found: list[Change], type_: str) -> dict[str, Change]:
    return {c.name: c for c in found if c.type == type_}
