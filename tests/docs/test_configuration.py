"""docs/configuration.md names every key a stack file can set."""

from __future__ import annotations

import re
import typing

from pydantic import BaseModel

from components.cluster.instance_types import DPD_INSTANCE_TYPES, GPU_INSTANCE_TYPES
from infra.paths import ROOT
from infra.stack_settings import StackSettings

REFERENCE = ROOT / "docs" / "configuration.md"


def _models_in(annotation: object) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for arg in typing.get_args(annotation) for model in _models_in(arg)]


def settings_keys(model: type[BaseModel] = StackSettings, path: str = "") -> set[str]:
    """Every key of the settings, as `parent.child` paths of camelCase names."""
    keys: set[str] = set()
    for name, field in model.model_fields.items():
        key = f"{path}.{field.alias or name}" if path else field.alias or name
        keys.add(key)
        for nested in _models_in(field.annotation):
            keys |= settings_keys(nested, key)
    return keys


def test_the_walk_finds_nested_keys():
    keys = settings_keys()
    assert "endpoints.prefill.replicas" in keys
    assert "cluster.instanceGroups.instanceType" in keys


def test_every_settings_key_is_in_the_configuration_reference():
    prose = re.sub(r"^```.*?^```", "", REFERENCE.read_text(), flags=re.M | re.S)
    spans = re.findall(r"`([^`]+)`", prose)
    documented = {word for span in spans for word in re.findall(r"[A-Za-z][A-Za-z0-9]*", span)}
    missing = sorted(k for k in settings_keys() if k.rsplit(".", 1)[-1] not in documented)
    assert not missing, f"add these keys to docs/configuration.md: {missing}"


def test_the_endpoint_instance_type_row_names_every_dpd_instance_type():
    (row,) = [
        line for line in REFERENCE.read_text().splitlines() if line.startswith("| `instanceType` |")
    ]
    assert re.findall(r"`(ml\.[^`]+)`", row) == list(DPD_INSTANCE_TYPES), (
        "the endpoint instanceType row of docs/configuration.md must name, in order: "
        + ", ".join(DPD_INSTANCE_TYPES)
    )


def test_the_gpu_type_table_names_every_gpu_instance_type():
    rows = [line for line in REFERENCE.read_text().splitlines() if line.startswith("| `ml.")]
    named = [name for row in rows for name in re.findall(r"`(ml\.[^`]+)`", row.split(" | ")[0])]
    assert named == list(GPU_INSTANCE_TYPES), (
        "the GPU type table of docs/configuration.md (An endpoint) must name, in order: "
        + ", ".join(GPU_INSTANCE_TYPES)
    )
