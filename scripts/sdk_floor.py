"""The least time the Pulumi SDK itself needs to register the resources of a render: the
registrations a render recorded in its resources.json, replayed through the SDK alone (generic
resource classes, inputs already plain, the SDK's mock monitor in preview with the render's
mocks), each with its type, name, parent, provider and dependencies. What it leaves out (typed
arguments, outputs and their applies, invokes, property dependencies, the stack's outputs) only
adds SDK work, so its time is a lower bound. scripts/bench_render.py runs it in a fresh
interpreter after importing the SDK modules the program loads, as `--child floor`.
"""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pulumi
from pulumi.runtime import settings
from pulumi.runtime.mocks import MockMonitor
from pulumi.runtime.stack import run_in_stack
from pulumi.runtime.sync_await import _sync_await

from infra.config_errors import PROJECT
from tools.render.mocks.cloud import CloudMocks

PROVIDER_PREFIX = "pulumi:providers:"


def in_preview(region: str, program: Callable[[], object], stack: str = "dev") -> int:
    """Run `program` in a fresh stack, in preview, the render's mocks answering for `region`;
    return how many resources it registered."""
    mocks = CloudMocks(region)
    monitor = MockMonitor(mocks)
    # References into remote components resolve against what the mocks made for them.
    monitor.resources = mocks.registry
    pulumi.runtime.set_mocks(mocks, project=PROJECT, stack=stack, preview=True, monitor=monitor)
    # set_mocks closes the stack it opens; run in a fresh one, as the language host does.
    settings.ROOT.set(None)
    _sync_await(run_in_stack(program))
    return len(monitor.resources)


def creation_order(registrations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The registrations with each one's parent, provider and dependencies before it."""
    by_urn = {r["urn"]: r for r in registrations}
    ordered: list[dict[str, Any]] = []
    seen: set[str] = set()

    def visit(urn: str | None) -> None:
        if urn not in by_urn or urn in seen:
            return
        seen.add(urn)
        registration = by_urn[urn]
        for before in (registration["parent"], registration["provider"]):
            visit(before)
        for before in registration["dependencies"]:
            visit(before)
        ordered.append(registration)

    for urn in by_urn:
        visit(urn)
    return ordered


def _register(registration: dict[str, Any], made: dict[str, pulumi.Resource]) -> pulumi.Resource:
    opts = pulumi.ResourceOptions(
        parent=made.get(registration["parent"]),
        provider=made.get(registration["provider"]),
        depends_on=[made[urn] for urn in registration["dependencies"] if urn in made],
    )
    kind, name, inputs = registration["type"], registration["name"], registration["inputs"]
    if kind.startswith(PROVIDER_PREFIX):
        return pulumi.ProviderResource(kind.removeprefix(PROVIDER_PREFIX), name, inputs, opts)
    if registration["custom"]:
        return pulumi.CustomResource(kind, name, inputs, opts)
    return pulumi.ComponentResource(kind, name, inputs, opts)


def register_all(registrations: list[dict[str, Any]]) -> None:
    made: dict[str, pulumi.Resource] = {}
    for registration in creation_order(registrations):
        made[registration["urn"]] = _register(registration, made)
    for resource in made.values():
        if isinstance(resource, pulumi.ComponentResource):
            resource.register_outputs({})


def replay(resources_file: Path, region: str) -> int:
    """Register every resource of `resources_file`, in the stack of its URNs; return how many
    resources the mocks hold, those made inside remote components included."""
    registrations = json.loads(resources_file.read_text())
    # urn:pulumi:<stack>::<project>::<type>::<name>
    stack = registrations[0]["urn"].removeprefix("urn:pulumi:").split("::")[0]
    return in_preview(region, lambda: register_all(registrations), stack)
