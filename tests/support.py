"""Shared helpers: run the program (or one component) under the recording mocks."""

from __future__ import annotations

import copy
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from infra import program
from infra.config_errors import ConfigError
from infra.render import RenderResult, run_program
from infra.stack_config import ROOT, to_stack_config

FIXTURES = Path(__file__).parent / "fixtures"


def dev_config() -> dict[str, Any]:
    """The dev stack's `config:` mapping, as plain values a test may change."""
    return copy.deepcopy(yaml.safe_load((ROOT / "Pulumi.dev.yaml").read_text())["config"])


def dev_endpoint() -> dict[str, Any]:
    return dev_config()["hyperpod-dpd:endpoints"][0]


def with_endpoints(*endpoints: dict[str, Any], **keys: Any) -> dict[str, Any]:
    config = dev_config()
    config["hyperpod-dpd:endpoints"] = list(endpoints)
    config.update(keys)
    return config


def render(config: dict[str, Any], stack: str = "test") -> RenderResult:
    return run_program(stack, to_stack_config(config), program.main)


def run_component(build: Callable[[], None]) -> RenderResult:
    """Register what `build` creates, with no stack configuration at all."""
    return run_program("test", to_stack_config({}), build)


def problems(config: dict[str, Any]) -> list[str]:
    """The problem lines the program reports for an invalid `config`."""
    with pytest.raises(ConfigError) as raised:
        render(config)
    return raised.value.problems


def endpoint_configs(result: RenderResult) -> list[dict[str, Any]]:
    return [r.inputs for r in result.resources if r.type.endswith(":InferenceEndpointConfig")]
