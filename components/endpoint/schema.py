"""Validation of InferenceEndpointConfig manifests against the operator's own CRD schema."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from jsonschema import Draft7Validator

SCHEMA_PATH = Path(__file__).resolve().parents[2] / "schemas" / "inferenceendpointconfig.v1.json"


@cache
def _validator() -> Draft7Validator:
    return Draft7Validator(json.loads(SCHEMA_PATH.read_text()))


def schema_errors(manifest: dict) -> list[tuple[str, str]]:
    """(path, message) of every violation, unknown fields included, in a stable order."""
    errors = sorted(_validator().iter_errors(manifest), key=lambda e: list(map(str, e.path)))
    return [(".".join(map(str, error.path)) or "(root)", error.message) for error in errors]
