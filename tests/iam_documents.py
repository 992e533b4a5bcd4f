"""Every IAM document of a render: trust policies, inline role policies and bucket policies."""

import json
from collections.abc import Iterable
from dataclasses import dataclass

from tools.render.render import Registration

# Resource type -> (input that holds the document, whether it is a trust policy).
DOCUMENT_INPUTS = {
    "aws:iam/role:Role": ("assumeRolePolicy", True),
    "aws:iam/rolePolicy:RolePolicy": ("policy", False),
    "aws:iam/policy:Policy": ("policy", False),
    "aws:s3/bucketPolicy:BucketPolicy": ("policy", False),
}


@dataclass(frozen=True)
class IamDocument:
    type: str
    name: str
    trust: bool
    document: dict

    @property
    def label(self) -> str:
        return f"{self.type.rsplit(':', 1)[1]} {self.name}"


def iam_documents(resources: Iterable[Registration]) -> list[IamDocument]:
    found = []
    for resource in resources:
        if resource.type not in DOCUMENT_INPUTS:
            continue
        key, trust = DOCUMENT_INPUTS[resource.type]
        value = resource.inputs[key]
        document = json.loads(value) if isinstance(value, str) else value
        found.append(IamDocument(resource.type, resource.name, trust, document))
    return found


def document_of(resources: Iterable[Registration], type_suffix: str, name: str) -> dict:
    (found,) = [
        d.document
        for d in iam_documents(resources)
        if d.type.endswith(type_suffix) and d.name == name
    ]
    return found


def statements_granting(document: dict, action: str) -> list[dict]:
    def actions(statement: dict) -> list[str]:
        value = statement["Action"]
        return [value] if isinstance(value, str) else value

    return [s for s in document["Statement"] if action in actions(s)]
