"""Validation of InferenceEndpointConfig manifests against the CRD of the operator serving them.

The API server validates against the installed CRD, so a field 3.3 added is refused by 3.2. One
schema per operator CRD is committed (scripts/derive_crd_schema.py); a newer operator is held to
the newest, as each CRD so far only added fields. The CRDs of 3.4 to 3.7 are not to be had here,
so their fields are refused until derived: no schema is written from a description.
"""

import json
from functools import cache
from pathlib import Path
from typing import Annotated, Any

from jsonschema import Draft7Validator, ValidationError
from pydantic import AfterValidator

from components.core.kubernetes_names import QUANTITY, QUANTITY_WORDS
from components.operator.versions import at_least

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
# Operator versions with a CRD schema of their own, oldest first.
SCHEMA_OPERATORS = ("3.2", "3.3")


def schema_path(schema_operator: str) -> Path:
    return SCHEMAS / f"inferenceendpointconfig.v1.operator-{schema_operator}.json"


def schema_operator(operator_version: str) -> str:
    """The newest operator with a schema that is not newer than `operator_version`."""
    return [v for v in SCHEMA_OPERATORS if at_least(operator_version, v)][-1]


# The CRD's patterns a specOverrides author meets, in words: Kubernetes' resource quantity (every
# resources.requests and limits value) and the instance type.
_PATTERN_WORDS = {
    QUANTITY: QUANTITY_WORDS,
    r"^ml\..*": "a SageMaker instance type such as ml.p5.48xlarge",
}


def _message(error: ValidationError) -> str:
    words = _PATTERN_WORDS.get(error.validator_value) if error.validator == "pattern" else None
    return f"{error.instance!r} is not {words}" if words else error.message


@cache
def _schema(schema_operator: str) -> dict:
    """Read once: each CRD-shaped setting and each manifest's check reads it (never changed)."""
    return json.loads(schema_path(schema_operator).read_text())


@cache
def _validator(schema_operator: str) -> Draft7Validator:
    return Draft7Validator(_schema(schema_operator))


def schema_errors(manifest: dict, operator_version: str) -> list[tuple[str, str]]:
    """(path, message) of every violation, unknown fields included, in a stable order."""
    validator = _validator(schema_operator(operator_version))
    errors = sorted(validator.iter_errors(manifest), key=lambda e: list(map(str, e.path)))
    return [(".".join(map(str, error.path)) or "(root)", _message(error)) for error in errors]


def field_schema(path: str) -> dict:
    """The newest CRD's schema of `spec.<path>` (dotted; `name[]` is an item of the list)."""
    node = _schema(SCHEMA_OPERATORS[-1])["properties"]["spec"]
    for part in path.split("."):
        node = node["properties"][part.removesuffix("[]")]
        if part.endswith("[]"):
            node = node["items"]
    return node


def crd_shaped(path: str) -> Any:
    """A setting that takes `spec.<path>` in the shape the newest CRD gives it (Kubernetes' own
    types, copied whole), refused naming the part it rejects; the manifest is checked again
    against the installed operator's CRD."""
    validator = Draft7Validator(field_schema(path))

    def check(value: Any) -> Any:
        errors = sorted(validator.iter_errors(value), key=lambda e: list(map(str, e.path)))
        if errors:
            where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in errors[0].path)
            raise ValueError(
                f"{where.lstrip('.')}: {_message(errors[0])}" if where else _message(errors[0])
            )
        return value

    return Annotated[Any, AfterValidator(check)]
