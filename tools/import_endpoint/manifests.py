"""The InferenceEndpointConfigs in a YAML file, as the API server would take them.

A file holds one or several documents (`---` between them), and a document may be a `List`
(`kubectl get inferenceendpointconfigs -o yaml` writes one). What the API server writes into a
live object (`status`, and in `metadata` its uid, resourceVersion, timestamps, managed fields
and kubectl's last-applied annotation) is set aside: it is no part of what a user sets. Each
manifest is then checked against the operator's CRD schemas (3.2 and 3.3), unknown fields
refused, as the API server refuses them: a manifest the newest CRD rejects is reported with the
field at fault.

The documents are read by the project's YAML loader (tools/render/yaml_io.py), which reads
scalars as YAML 1.2 does; kubectl's reader (sigs.k8s.io/yaml, go-yaml v2) takes `yes` and `on`
as booleans, which the CRD's string fields would then refuse.
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from components.core.findings import field_path
from components.endpoint.kind import API_VERSION, KIND
from components.endpoint.schema import SCHEMA_OPERATORS, schema_errors
from tools.render import yaml_io

# Far more than any manifest: AWS's largest samples are a few KiB.
MAX_MANIFEST_FILE_BYTES = 2**20
# What the API server sets on a live object.
SERVER_METADATA = (
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "managedFields",
    "selfLink",
    "finalizers",
    "ownerReferences",
)
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


@dataclass(frozen=True)
class Manifest:
    """One InferenceEndpointConfig: where it was found, and its apiVersion, kind, metadata and
    spec as a user sets them."""

    where: str
    body: dict[str, Any]

    @property
    def name(self) -> str:
        return self.body["metadata"]["name"]

    @property
    def namespace(self) -> str:
        return self.body["metadata"].get("namespace", "default")

    @property
    def spec(self) -> dict[str, Any]:
        return self.body["spec"]


@dataclass(frozen=True)
class Refusal:
    """Why a document is no manifest the stack can take: the field at fault and the reason."""

    where: str
    field: str
    problem: str

    def line(self) -> str:
        return f"{self.where}: {self.field}: {self.problem}"


def _kind(value: Any) -> str:
    return {list: "a list", str: "text", int: "a number", float: "a number", bool: "a boolean"}.get(
        type(value), "empty"
    )


def _as_written(body: dict[str, Any]) -> dict[str, Any]:
    """The manifest without what the API server adds to a live object."""
    out = {key: value for key, value in body.items() if key != "status"}
    metadata = out.get("metadata")
    if isinstance(metadata, dict):
        kept = {k: v for k, v in metadata.items() if k not in SERVER_METADATA}
        annotations = kept.get("annotations")
        if isinstance(annotations, dict) and LAST_APPLIED in annotations:
            kept["annotations"] = {k: v for k, v in annotations.items() if k != LAST_APPLIED}
            if not kept["annotations"]:
                del kept["annotations"]
        out["metadata"] = kept
    return out


def _schema_refusal(where: str, body: dict[str, Any]) -> Refusal | None:
    """The first problem of the newest CRD that refuses the manifest, if every CRD does."""
    found = [schema_errors(body, operator) for operator in SCHEMA_OPERATORS]
    if any(not errors for errors in found):
        return None
    path, message = found[-1][0]
    if "Additional properties are not allowed" in message:
        message = f"not in the operator's schema ({message})"
    return Refusal(where, path, f"the operator's CRD (3.2 and 3.3) refuses it: {message}")


def _document(where: str, document: Any) -> list[Manifest | Refusal]:
    if not isinstance(document, dict):
        return [Refusal(where, "(document)", f"is {_kind(document)}, not a Kubernetes object")]
    if isinstance(document.get("items"), list) and str(document.get("kind", "")).endswith("List"):
        return [
            found
            for i, item in enumerate(document["items"])
            for found in _document(f"{where}, items[{i}]", item)
        ]
    kind, api_version = document.get("kind"), document.get("apiVersion")
    if kind != KIND:
        return [Refusal(where, "kind", f"{kind!r} is not an {KIND}")]
    if api_version != API_VERSION:
        return [
            Refusal(
                where,
                "apiVersion",
                f"{api_version!r} is not served by the operator's CRD, which serves "
                f"{API_VERSION} only",
            )
        ]
    body = _as_written(document)
    metadata = body.get("metadata")
    if not isinstance(metadata, dict) or not isinstance(metadata.get("name"), str):
        return [Refusal(where, "metadata.name", "is missing; the API server needs a name")]
    if not isinstance(body.get("spec"), dict):
        return [Refusal(where, "spec", "is missing or not a mapping")]
    refusal = _schema_refusal(where, body)
    return [refusal] if refusal else [Manifest(where, body)]


def read_manifests(path: Path) -> list[Manifest | Refusal]:
    """Each InferenceEndpointConfig in the file, or why a document is none the stack takes."""
    where = str(path)
    try:
        documents = yaml_io.read_yaml_file(path, MAX_MANIFEST_FILE_BYTES, many=True)
    except yaml_io.YamlFileError as unfit:
        at = f"line {unfit.at[0]}, column {unfit.at[1]}" if unfit.at else "(file)"
        field = field_path(*unfit.keys) or at
        return [Refusal(where, field, unfit.problem)]
    kept = [(i, d) for i, d in enumerate(documents) if d is not None]
    if not kept:
        return [Refusal(where, "(file)", f"holds no {KIND}: it is empty")]
    return [
        found
        for i, document in kept
        for found in _document(
            where if len(documents) == 1 else f"{where}, document {i + 1}", document
        )
    ]
