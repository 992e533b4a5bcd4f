"""The GitHub Actions files, read as GitHub reads them."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from infra.paths import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"
ACTIONS = ROOT / ".github" / "actions"


def workflow_files() -> list[Path]:
    return sorted(WORKFLOWS.glob("*.yml"))


def action_files() -> list[Path]:
    return sorted(ACTIONS.glob("*/action.yml"))


def load(path: Path) -> dict[str, Any]:
    document = yaml.safe_load(path.read_text())
    # YAML 1.1 reads the bare key `on` as true; GitHub reads it as "on".
    if True in document:
        document["on"] = document.pop(True)
    return document


def workflow(name: str) -> dict[str, Any]:
    return load(WORKFLOWS / name)


def steps(path: Path) -> Iterator[dict[str, Any]]:
    """Every step of a workflow's jobs, or of a composite action."""
    document = load(path)
    if "runs" in document:
        yield from document["runs"].get("steps", [])
    for job in document.get("jobs", {}).values():
        yield from job.get("steps", [])


def step_using(path: Path, action: str) -> dict[str, Any]:
    """The one step of `path` that uses `action` (owner/name, at any version)."""
    found = [step for step in steps(path) if step.get("uses", "").split("@")[0] == action]
    assert len(found) == 1, f"{path.name}: {len(found)} steps use {action}"
    return found[0]


def step_named(path: Path, name: str) -> dict[str, Any]:
    found = [step for step in steps(path) if step.get("name") == name]
    assert len(found) == 1, f"{path.name}: {len(found)} steps named {name!r}"
    return found[0]
