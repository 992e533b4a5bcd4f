"""The dev stack as the policy analyzer hands it to the pack, and a report_violation that keeps
what it is told.

fixtures/dev_stack.json is copied from `hyperpod-dpd render` of the dev stack: every resource
the policies look at, with its type, name, URN and inputs, plus `propertyDependencies`, the
resources whose ID each top-level input carries, as the engine reports them.
"""

import copy
import json
from pathlib import Path

from pulumi_policy import (
    Policy,
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    StackValidationArgs,
)
from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, unknown_checking_proxy

FIXTURE = Path(__file__).parent / "fixtures" / "dev_stack.json"


def dev_stack() -> list[dict]:
    """The fixture's resources, for a test to change."""
    return json.loads(FIXTURE.read_text())


def in_preview(resources: list[dict]) -> list[dict]:
    """`resources` as the preview of a new stack shows them: no resource has an ID yet, so every
    input that carries one is unknown."""
    previewed = copy.deepcopy(resources)
    for resource in previewed:
        for key in resource["propertyDependencies"]:
            resource["inputs"][key] = UNKNOWN_STRING_VALUE
    return previewed


def one(resources: list[dict], type_: str, name: str) -> dict:
    (found,) = [r for r in resources if r["type"] == type_ and r["name"] == name]
    return found


def without(resources: list[dict], type_: str, name: str) -> list[dict]:
    return [r for r in resources if r is not one(resources, type_, name)]


def _options(resource: dict) -> PolicyResourceOptions:
    return PolicyResourceOptions(
        protect=resource["protect"],
        ignore_changes=[],
        delete_before_replace=None,
        aliases=[],
        custom_timeouts=PolicyCustomTimeouts(0, 0, 0),
        additional_secret_outputs=[],
    )


def _stack_args(resources: list[dict]) -> StackValidationArgs:
    """What the analyzer passes a stack policy: inputs that fail on unknown values, and each
    input's dependencies linked to the resources of the stack."""
    by_urn = {
        r["urn"]: PolicyResource(
            r["type"],
            unknown_checking_proxy(r["inputs"]),
            r["urn"],
            r["name"],
            _options(r),
            None,
            None,
            [],
            {},
        )
        for r in resources
    }
    for r in resources:
        by_urn[r["urn"]].property_dependencies = {
            key: [by_urn[urn] for urn in urns if urn in by_urn]
            for key, urns in r["propertyDependencies"].items()
        }
    return StackValidationArgs(list(by_urn.values()))


def _resource_args(resource: dict) -> ResourceValidationArgs:
    return ResourceValidationArgs(
        resource["type"],
        unknown_checking_proxy(resource["inputs"]),
        resource["urn"],
        resource["name"],
        _options(resource),
        None,
    )


class Violations:
    """A report_violation that keeps each message, with the URN it names (None: the resource
    being validated)."""

    def __init__(self) -> None:
        self.reported: list[tuple[str, str | None]] = []

    def __call__(self, message: str, urn: str | None = None) -> None:
        self.reported.append((message, urn))


def stack_violations(policy: Policy, resources: list[dict]) -> list[tuple[str, str | None]]:
    violations = Violations()
    policy.validate(_stack_args(resources), violations)
    return violations.reported


def resource_violations(policy: Policy, resources: list[dict]) -> list[tuple[str, str]]:
    """Each violation with the URN of the resource it was reported on."""
    found = []
    for resource in resources:
        violations = Violations()
        policy.validate(_resource_args(resource), violations)
        found += [(message, resource["urn"]) for message, _ in violations.reported]
    return found
