"""Derive the strict JSON schema of InferenceEndpointConfig v1 from the operator's CRD.

The operator ships its CRD inside a Helm chart, so the file carries Helm template
expressions and a thousand descriptions. Validation needs neither: this keeps the
structure, types, enums, patterns, bounds, defaults and required fields of the `v1`
schema, and marks every object with declared properties as closed, which is how the
API server treats unknown fields under strict field validation.

One schema per operator version: each operator ships its own CRD (3.3 adds
`loadBalancer.idleTimeoutSeconds` and `modelCacheConfig`), and a manifest is checked
against the schema of the operator that will serve it.

Usage: python scripts/derive_crd_schema.py OPERATOR_VERSION CRD_YAML OUT_JSON
"""

import json
import sys
from pathlib import Path

import yaml

KEPT_KEYWORDS = {
    "type", "properties", "items", "required", "enum", "pattern", "minimum", "maximum",
    "minLength", "maxLength", "minItems", "maxItems", "anyOf", "additionalProperties", "default",
    "format",
}  # fmt: skip

# Operator version -> the hyperpod-inference-operator Helm chart that ships its CRD
# (../shared/crds/README.md).
OPERATOR_CHARTS = {"3.2": "2.2.2", "3.3": "2.3.0"}


def strip(node: dict) -> dict:
    out: dict = {}
    for key, value in node.items():
        if key not in KEPT_KEYWORDS:
            continue
        if key == "properties":
            out[key] = {name: strip(child) for name, child in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = strip(value)
        elif key == "anyOf":
            out[key] = [strip(choice) for choice in value]
        else:
            out[key] = value
    # Kubernetes owns ObjectMeta's schema; the CRD leaves metadata open, so do we.
    if "properties" in out and "additionalProperties" not in out:
        out["additionalProperties"] = False
    return out


def derive(crd: dict, operator: str) -> dict:
    (v1,) = [version for version in crd["spec"]["versions"] if version["name"] == "v1"]
    schema = strip(v1["schema"]["openAPIV3Schema"])
    note = (
        "Derived from the CustomResourceDefinition inferenceendpointconfigs."
        "inference.sagemaker.aws.amazon.com (version v1) of the SageMaker HyperPod "
        f"Inference Operator, Helm chart hyperpod-inference-operator {OPERATOR_CHARTS[operator]} "
        f"(operator {operator}), in github.com/aws/sagemaker-hyperpod-cli, licensed under "
        "Apache-2.0. Descriptions and Helm templating removed; objects closed to unknown "
        "fields. Regenerate with scripts/derive_crd_schema.py."
    )
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$comment": note,
        "title": f"{crd['spec']['names']['kind']} {crd['spec']['group']}/v1",
        **schema,
    }


def main(argv: list[str]) -> int:
    if len(argv) != 4 or argv[1] not in OPERATOR_CHARTS:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    crd = yaml.safe_load(Path(argv[2]).read_text())
    out = json.dumps(derive(crd, argv[1]), indent=1, sort_keys=True) + "\n"
    Path(argv[3]).write_text(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
