"""The offline render: the very program `pulumi up` runs, in-process under Pulumi's mocks.

A recording monitor keeps every registration as the provider would receive it (type, name,
parent, dependencies, camelCase inputs with secrets masked, resource options). From that
come `resources.json`, the Kubernetes manifests, and the summary.
"""

import logging
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import Any

import pulumi
from google.protobuf import json_format
from pulumi.runtime import rpc, settings
from pulumi.runtime.mocks import MockMonitor
from pulumi.runtime.stack import run_in_stack
from pulumi.runtime.sync_await import _sync_await

from infra.config_errors import PROJECT
from infra.paths import ROOT
from tools.render.mocks.account import ACCOUNT_ID
from tools.render.mocks.cloud import CloudMocks
from tools.render.stack_config import SECRET_PLACEHOLDER, StackConfig

STACK_TYPE = "pulumi:pulumi:Stack"


@dataclass(frozen=True)
class Registration:
    # In the order of resources.json's keys.
    type: str
    name: str
    urn: str
    # The ID the provider answered with (mocked).
    id: str
    parent: str | None
    custom: bool
    provider: str | None
    dependencies: list[str]
    # Input name -> the resources whose outputs that input carries.
    property_dependencies: dict[str, list[str]]
    inputs: dict[str, Any]
    options: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        found = {f.name: getattr(self, f.name) for f in fields(self)}
        return {
            k if k != "property_dependencies" else "propertyDependencies": v
            for k, v in found.items()
        }


@dataclass
class RenderResult:
    stack: str
    resources: list[Registration]
    outputs: dict[str, Any]
    warnings: list[str] = field(default_factory=list)

    def of_type(self, type_token: str) -> list[Registration]:
        return [r for r in self.resources if r.type == type_token]

    def by_urn(self, urn: str) -> Registration:
        return next(r for r in self.resources if r.urn == urn)


def _relative(value: Any) -> Any:
    """Asset paths relative to the project, so renders of two checkouts compare equal."""
    if isinstance(value, str) and value.startswith(f"{ROOT}/"):
        return value.removeprefix(f"{ROOT}/")
    return value


def _masked(value: Any) -> Any:
    """A secret with its shape kept and every value hidden, so manifests stay valid."""
    if isinstance(value, dict):
        return {k: _masked(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked(v) for v in value]
    return SECRET_PLACEHOLDER


def _plain(value: Any) -> Any:
    """A wire value as JSON: secrets masked, references as URNs, whole floats as ints."""
    if isinstance(value, dict):
        # The wire protocol's signatures, kept from the SDK rather than copied as literals.
        signature = value.get(rpc._special_sig_key)
        if signature == rpc._special_secret_sig:
            return _masked(value.get("value"))
        if signature == rpc._special_resource_sig:
            return value.get("urn")
        if signature in (rpc._special_asset_sig, rpc._special_archive_sig):
            return {k: _relative(_plain(v)) for k, v in value.items() if k != rpc._special_sig_key}
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if value == rpc.UNKNOWN:
        return "[unknown]"
    return value


def _options(request: Any) -> dict[str, Any]:
    timeouts = request.customTimeouts
    options = {
        "protect": request.protect,
        "deleteBeforeReplace": request.deleteBeforeReplace,
        "retainOnDelete": request.retainOnDelete,
        "replaceOnChanges": sorted(request.replaceOnChanges),
        "ignoreChanges": sorted(request.ignoreChanges),
        # The resource whose deletion deletes this one: `pulumi destroy` then skips its own.
        "deletedWith": request.deletedWith,
        # The types the resource was known by before a rename (pulumi.Alias(type_=...)).
        "aliases": [alias.spec.type for alias in request.aliases if alias.spec.type],
        "customTimeouts": {
            phase: getattr(timeouts, phase)
            for phase in ("create", "update", "delete")
            if getattr(timeouts, phase)
        },
    }
    return {key: value for key, value in options.items() if value}


class RecordingMonitor(MockMonitor):
    def __init__(self, mocks: CloudMocks) -> None:
        super().__init__(mocks)
        # References from remote components resolve against what the mocks created for them.
        self.resources = mocks.registry
        self.registrations: list[Registration] = []
        self.stack_outputs: dict[str, Any] = {}
        self._stack_urn: str | None = None

    def RegisterResource(self, request: Any) -> Any:  # noqa: N802 (gRPC method name)
        wire_inputs = json_format.MessageToDict(request.object)
        response = super().RegisterResource(request)
        if request.type == STACK_TYPE:
            self._stack_urn = response.urn
            return response
        self.registrations.append(
            Registration(
                urn=response.urn,
                id=response.id,
                type=request.type,
                name=request.name,
                parent=None if request.parent in ("", self._stack_urn) else request.parent,
                custom=request.custom,
                provider=request.provider.rsplit("::", 1)[0] or None,
                dependencies=sorted(set(request.dependencies)),
                property_dependencies={
                    key: sorted(set(deps.urns))
                    for key, deps in sorted(request.propertyDependencies.items())
                    if deps.urns
                },
                inputs=_plain(wire_inputs),
                options=_options(request),
            )
        )
        return response

    def RegisterResourceOutputs(self, request: Any) -> Any:  # noqa: N802 (gRPC method name)
        if request.urn == self._stack_urn:
            self.stack_outputs = _plain(json_format.MessageToDict(request.outputs))
        return super().RegisterResourceOutputs(request)


class _WarningCollector(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@contextmanager
def _without_shell_config() -> Iterator[None]:
    """The shell's PULUMI_CONFIG* variables hidden: Pulumi's SDK reads them as stack config
    (runtime/config.py), so a leftover export would change what the stack file says."""
    hidden = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith("PULUMI_CONFIG")}
    try:
        yield
    finally:
        os.environ.update(hidden)


def run_program(
    stack: str,
    config: StackConfig,
    program: Callable[[], None],
    account_id: str | None = None,
) -> RenderResult:
    """Run `program` as the stack `stack` would, with mocks in place of the engine and only the
    stack file's config, answering as the AWS account `account_id` (None: the mocks' own,
    123456789012)."""
    with _without_shell_config():
        return _run(stack, config, program, account_id or ACCOUNT_ID)


def _run(
    stack: str, config: StackConfig, program: Callable[[], None], account_id: str
) -> RenderResult:
    mocks = CloudMocks(config.values.get("aws:region", ""), account_id)
    monitor = RecordingMonitor(mocks)
    collector = _WarningCollector()
    logger = logging.getLogger(f"{PROJECT}.render")
    logger.propagate = False
    logger.handlers = [collector]

    pulumi.runtime.set_all_config(config.values, config.secret_keys)
    pulumi.runtime.set_mocks(
        mocks, project=PROJECT, stack=stack, preview=False, logger=logger, monitor=monitor
    )
    # set_mocks opens a stack of its own and closes it at once; run the program in a fresh
    # one instead, as the language host does, so its exports are registered at the end.
    settings.ROOT.set(None)
    settings.SETTINGS.outputs.clear()
    # Private, kept: pulumi.runtime.test runs its programs the same way, on the SDK's loop.
    _sync_await(run_in_stack(program))
    return RenderResult(
        stack=stack,
        # Registration order depends on how outputs resolve; URNs give a stable one.
        resources=sorted(monitor.registrations, key=lambda r: r.urn),
        outputs=monitor.stack_outputs,
        warnings=collector.messages,
    )
