"""Derive, for each AWS type the stack creates, the inputs whose change replaces it, from the
CloudFormation resource schemas cfn-lint ships (`createOnlyProperties`).

pulumi-aws types go through the input-to-property table of tools/diff/cloudformation_types.py;
aws-native types are CloudFormation's already, their inputs its properties in camelCase. A
create-only property the stack sets no input for is left out. The offline diff
(tools/diff/replacements.py) and the mocks' IDs read the result.

Usage: python scripts/derive_create_only.py OUT_JSON
"""

import json
import sys
from importlib.metadata import version
from pathlib import Path

from cfnlint.schema import PROVIDER_SCHEMA_MANAGER

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tools.diff.cloudformation_types import (
    AWS_NATIVE_TYPES,
    NAME_ONLY_TWINS,
    TWINS,
    aws_native_type,
)

# The schemas barely differ by region; create-only properties not at all for these types.
REGION = "us-east-1"


def _camel(name: str) -> str:
    return name[:1].lower() + name[1:]


def _input_path(pointer: str, names: dict[str, str] | None) -> str | None:
    """`/properties/Orchestrator/Eks` as the input path `orchestrator.eks`; None when the stack
    sets no input for it. `names` maps a pulumi-aws type's properties back to its inputs."""
    first, *rest = pointer.removeprefix("/properties/").split("/")
    if names is None:
        head = _camel(first)
    else:
        head = next((name for name, prop in names.items() if prop == first), None)
        if head is None:
            return None
    path = head
    for part in rest:
        path += "[*]" if part == "*" else f".{_camel(part)}"
    return path


def _create_only(cfn_type: str, names: dict[str, str] | None) -> list[str]:
    schema = PROVIDER_SCHEMA_MANAGER.get_resource_schema(REGION, cfn_type).schema
    paths = (_input_path(p, names) for p in schema.get("createOnlyProperties", []))
    return sorted(p for p in paths if p is not None)


def derive() -> dict:
    types = {
        token: {"cloudFormation": cfn_type, "replaces": _create_only(cfn_type, names)}
        for token, (cfn_type, names) in {**TWINS, **NAME_ONLY_TWINS}.items()
    }
    for token in AWS_NATIVE_TYPES:
        cfn_type = aws_native_type(token)
        types[token] = {"cloudFormation": cfn_type, "replaces": _create_only(cfn_type, None)}
    return {
        "$comment": (
            f"Derived from cfn-lint {version('cfn-lint')}'s CloudFormation resource schemas "
            f"({REGION}): each type's createOnlyProperties as the inputs that set them. "
            "Regenerate with scripts/derive_create_only.py."
        ),
        "types": dict(sorted(types.items())),
    }


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    Path(sys.argv[1]).write_text(json.dumps(derive(), indent=1) + "\n")
