"""A stack's configuration file, turned into what the Pulumi CLI hands the program.

The CLI passes every value as a string (objects and lists as JSON), namespaced by project,
with project-level defaults from Pulumi.yaml filled in. Secrets are encrypted in the file;
offline they become a placeholder that is still marked secret.
"""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from components.core.findings import field_path
from infra.config_errors import PROJECT
from infra.paths import ROOT
from tools.render import yaml_io

SECRET_PLACEHOLDER = "[secret]"
# A stack file of many endpoints is tens of KiB; past this it is not a stack file.
MAX_STACK_FILE_BYTES = 2**20


class StackFileError(ValueError):
    """A stack file that is not a YAML mapping with a `config:` mapping in it."""


@dataclass(frozen=True)
class StackConfig:
    values: dict[str, str]
    secret_keys: list[str]


def stack_file(stack: str) -> Path:
    return ROOT / f"Pulumi.{stack}.yaml"


def _is_ciphertext(value: Any) -> bool:
    """`{secure: <text>}`, as Pulumi recognises an encrypted value (config/object.go)."""
    return isinstance(value, dict) and set(value) == {"secure"} and isinstance(value["secure"], str)


def _has_secret(value: Any) -> bool:
    if isinstance(value, dict):
        return _is_ciphertext(value) or any(_has_secret(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_secret(v) for v in value)
    return False


def _without_secrets(value: Any) -> Any:
    if isinstance(value, dict):
        if _is_ciphertext(value):
            return SECRET_PLACEHOLDER
        return {k: _without_secrets(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_secrets(v) for v in value]
    return value


def _as_cli_string(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _namespaced(key: str) -> str:
    return key if ":" in key else f"{PROJECT}:{key}"


def to_stack_config(config: dict[str, Any]) -> StackConfig:
    """The `config:` mapping of a stack file, as the CLI would hand it over."""
    path = ROOT / "Pulumi.yaml"
    project = _parsed(path)
    defaults = project.get("config") if isinstance(project, dict) else None
    if not isinstance(defaults, (dict, type(None))):
        raise StackFileError(f"{path}: config: is {_kind(defaults)}; it must be a mapping")
    merged = {
        _namespaced(key): value["default"]
        for key, value in (defaults or {}).items()
        if isinstance(value, dict) and "default" in value
    } | {_namespaced(k): v for k, v in config.items()}
    return StackConfig(
        values={key: _as_cli_string(_without_secrets(v)) for key, v in merged.items()},
        secret_keys=sorted(key for key, v in merged.items() if _has_secret(v)),
    )


def _place(path: tuple[str | int, ...]) -> str:
    """The config key a value sits under (`hyperpod-dpd:endpoints[0].tags.created`), if any."""
    if len(path) < 2 or path[0] != "config":
        return ""
    key, *rest = path[1:]
    shown = field_path(_namespaced(str(key)), *rest)
    return f" {shown if len(shown) <= 120 else shown[:117] + '...'}:"


def _parsed(path: Path, text: str | None = None) -> Any:
    try:
        return yaml_io.read_yaml_file(path, MAX_STACK_FILE_BYTES, text=text)
    except yaml_io.YamlFileError as unfit:
        if unfit.missing:
            raise StackFileError(f"{path}: no such stack config file") from None
        raise StackFileError(f"{unfit.where}:{_place(unfit.keys)} {unfit.problem}") from None


def _kind(value: Any) -> str:
    return {list: "a list", str: "a string", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__
    )


def read_stack_config(path: Path, text: str | None = None) -> StackConfig:
    """The stack file's `config:` (or that of `text`, the file's text as it would be);
    StackFileError names the file (and line) when it is not a mapping holding a `config:`
    mapping."""
    document = _parsed(path, text)
    if document is None:
        document = {}
    if not isinstance(document, dict):
        raise StackFileError(
            f"{path}: is {_kind(document)}; a stack file is a mapping with a `config:` mapping"
        )
    config = document.get("config")
    if config is None:
        config = {}
    if not isinstance(config, dict):
        raise StackFileError(
            f"{path}: config: is {_kind(config)}; it must be a mapping of config keys to values"
        )
    read = to_stack_config(config)
    if "aws:region" in read.secret_keys:
        raise StackFileError(
            f"{path}: aws:region: is encrypted, and the offline tools cannot decrypt it; the "
            "region is no secret, so set it plain: `pulumi config set aws:region <region>`"
        )
    return read
