"""The mocks Pulumi's runtime calls: each registration and invoke handed to its answer."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass

import pulumi

from tools.diff.replacements import replace_triggers
from tools.render.mocks.account import ACCOUNT_ID, MockedAccount, hex_id
from tools.render.mocks.aws_resources import AWS_RESOURCES
from tools.render.mocks.grafana import GRAFANA_RESOURCES
from tools.render.mocks.lookups import LOOKUPS
from tools.render.mocks.preflight import PREFLIGHT_ANSWERS

INVOKES = {**LOOKUPS, **PREFLIGHT_ANSWERS}


@dataclass(frozen=True)
class WireRegistration:
    """A registration as the engine receives it. The mock API hands new_resource neither the
    resource options nor the IDs of the resources its inputs refer to; the wire form has both."""

    # References to resources are {signature, urn, id} here.
    inputs: dict
    replace_on_changes: tuple[str, ...]


def _kubernetes_id(name: str, inputs: dict) -> str:
    metadata = inputs.get("metadata") or {}
    object_name = metadata.get("name", name)
    namespace = metadata.get("namespace")
    return f"{namespace}/{object_name}" if namespace else object_name


class CloudMocks(MockedAccount, pulumi.runtime.Mocks):
    def __init__(self, region: str, account_id: str = ACCOUNT_ID) -> None:
        super().__init__(region, account_id)
        # The inputs of each explicit provider, by its ID: Grafana's resources live at the
        # address of the provider that creates them.
        self.providers: dict[str, dict] = {}
        # The registration under way on the wire, which the monitor sets. Per thread: the
        # engine registers resources from several threads at once.
        self._registering = threading.local()

    @property
    def registering(self) -> WireRegistration | None:
        return getattr(self._registering, "value", None)

    @registering.setter
    def registering(self, registration: WireRegistration | None) -> None:
        self._registering.value = registration

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict]:
        inputs, name, typ = dict(args.inputs), args.name, args.typ
        if typ.startswith("pulumi:providers:"):
            self.providers[f"{name}-provider"] = inputs
            return f"{name}-provider", inputs
        if typ.startswith("kubernetes:"):
            return _kubernetes_id(name, inputs), inputs
        wire = self.registering or WireRegistration(inputs, ())
        identity = _identity(typ, name, wire.inputs, wire.replace_on_changes)
        compute = AWS_RESOURCES.get(typ)
        if typ in GRAFANA_RESOURCES:
            resource_id, outputs = GRAFANA_RESOURCES[typ](self._grafana_url(args), inputs)
        elif compute:
            resource_id, outputs = compute(self, name, identity, inputs)
        else:
            resource_id, outputs = "", {}
        return resource_id or f"{name}-{hex_id(typ, identity, length=8)}", {**inputs, **outputs}

    def _grafana_url(self, args: pulumi.runtime.MockResourceArgs) -> str:
        """The address of the Grafana a resource is created in: its provider's `url`."""
        provider_id = (args.provider or "").rsplit("::", 1)[-1]
        return str(self.providers.get(provider_id, {}).get("url", "")).rstrip("/")

    def call(self, args: pulumi.runtime.MockCallArgs) -> dict:
        answer = INVOKES.get(args.token)
        if answer is None:
            raise NotImplementedError(f"no mocked answer for {args.token}")
        return answer(self, args.args)


def _input_at(inputs: dict, path: str) -> object:
    """The input at a dotted path (`orchestrator.eks`), or None."""
    value: object = inputs
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _identity(typ: str, name: str, inputs: dict, recorded: tuple[str, ...]) -> str:
    """What a resource's mocked ID derives from: its logical name and the inputs that force its
    replacement. As in AWS, a replaced resource gets a new ID, so every input that carries that
    ID changes too, and the offline diff shows the replacements it cascades into."""
    triggers = sorted({*recorded, *replace_triggers(typ)})
    immutable = {path: _input_at(inputs, path) for path in triggers}
    return f"{name}/{json.dumps(immutable, sort_keys=True)}" if triggers else name
