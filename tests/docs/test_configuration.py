"""docs/configuration.md names every key a stack file can set."""

import json
import re
import typing

import pytest
from pydantic import BaseModel

from components.cluster.instance_types import DPD_INSTANCE_TYPES, GPU_INSTANCE_TYPES
from components.endpoint.overrides import AGGREGATED_FIELDS, DPD_FIELDS, owned_field
from components.endpoint.schema import SCHEMA_OPERATORS, schema_path
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


# The table of every CRD field ("Every field of the CRD"): the CRD's fields, walked from its
# schema, each under a row; each row a field the CRD has; and a row left to specOverrides exactly
# when no setting owns the field in either mode (manifest.py's tables).
def crd_fields(node: dict, path: str = "spec", leaves_only: bool = True) -> set[str]:
    """The fields under `node`, as dotted paths (a list's items take the list's path): those
    with no fields of their own, or every one."""
    if node.get("type") == "array" and "properties" in node.get("items", {}):
        node = node["items"]
    children = node.get("properties", {})
    found = set() if children and leaves_only else {path}
    for name, child in children.items():
        found |= crd_fields(child, f"{path}.{name}", leaves_only)
    return found


def crd_table() -> dict[str, str]:
    rows = re.findall(r"^\| `(spec\.[^`]+)` \| (.+) \|$", REFERENCE.read_text(), flags=re.M)
    return dict(rows)


def _schema(operator: str) -> dict:
    return json.loads(schema_path(operator).read_text())["properties"]["spec"]


def _covering(field: str, rows: dict[str, str]) -> str | None:
    return next((row for row in rows if field == row or field.startswith(f"{row}.")), None)


@pytest.mark.parametrize("operator", SCHEMA_OPERATORS)
def test_every_crd_field_is_in_the_table(operator):
    rows = crd_table()
    missing = sorted(f for f in crd_fields(_schema(operator)) if not _covering(f, rows))
    assert not missing, (
        "add these CRD fields to the table 'Every field of the CRD' in docs/configuration.md, "
        f"with their typed key or why they are left to specOverrides: {missing}"
    )


def test_every_row_of_the_crd_table_is_a_field_of_the_crd():
    fields = crd_fields(_schema(SCHEMA_OPERATORS[-1]), leaves_only=False)
    assert sorted(set(crd_table()) - fields) == []


def test_the_crd_table_leaves_to_overrides_exactly_what_no_setting_owns():
    wrong = []
    for row, key in crd_table().items():
        field = row.removeprefix("spec.")
        owned = [
            owned_field(field, owners) is not None for owners in (DPD_FIELDS, AGGREGATED_FIELDS)
        ]
        # A field of one mode only (pdSpec's) is owned in the other, where the mode is refused.
        overrides = key.startswith("`specOverrides` only")
        if (overrides and all(owned)) or (not overrides and not any(owned)):
            wrong.append(row)
    assert wrong == [], f"these rows say specOverrides where a setting owns them, or not: {wrong}"
