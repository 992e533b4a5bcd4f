"""A stack's configuration file, turned into what the Pulumi CLI hands the program.

The CLI passes every value as a string (objects and lists as JSON), namespaced by project,
with project-level defaults from Pulumi.yaml filled in. Secrets are encrypted in the file;
offline they become a placeholder that is still marked secret.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from infra.config_errors import PROJECT
from infra.offline import yaml_io
from infra.paths import ROOT

SECRET_PLACEHOLDER = "[secret]"


@dataclass(frozen=True)
class StackConfig:
    values: dict[str, str]
    secret_keys: list[str]


def stack_file(stack: str) -> Path:
    return ROOT / f"Pulumi.{stack}.yaml"


def _has_secret(value: Any) -> bool:
    if isinstance(value, dict):
        return set(value) == {"secure"} or any(_has_secret(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_secret(v) for v in value)
    return False


def _without_secrets(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {"secure"}:
            return SECRET_PLACEHOLDER
        return {k: _without_secrets(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_secrets(v) for v in value]
    return value


def _as_cli_string(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _namespaced(key: str) -> str:
    return key if ":" in key else f"{PROJECT}:{key}"


def _project_defaults() -> dict[str, Any]:
    project = yaml_io.load((ROOT / "Pulumi.yaml").read_text())
    return {
        _namespaced(key): declared["default"]
        for key, declared in (project.get("config") or {}).items()
        if isinstance(declared, dict) and "default" in declared
    }


def to_stack_config(config: dict[str, Any]) -> StackConfig:
    """The `config:` mapping of a stack file, as the CLI would hand it over."""
    declared = {_namespaced(k): v for k, v in config.items()}
    merged = {**_project_defaults(), **declared}
    return StackConfig(
        values={key: _as_cli_string(_without_secrets(v)) for key, v in merged.items()},
        secret_keys=sorted(key for key, v in merged.items() if _has_secret(v)),
    )


def read_stack_config(path: Path) -> StackConfig:
    document = yaml_io.load(path.read_text()) or {}
    return to_stack_config(document.get("config") or {})
