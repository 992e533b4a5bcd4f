"""The order in which `pulumi destroy` deletes a stack's resources, from `resources.json`.

Pulumi's engine schedules deletes in waves (pulumi/pulumi `pkg/resource/deploy/
step_generator.go`, `ScheduleDeletes`, since pulumi/pulumi#1963): it takes the resources that
depend on no other resource being deleted, then those whose such dependencies were all taken
before, and so on, and runs these layers in reverse, each to completion before the next. So
a resource goes as late as its longest chain of dependencies allows, and a resource that
nothing depends on can still go long before what it serves, if its own chain is short: only a
dependency orders two deletes. What a resource depends on is what the engine reads
(`pkg/resource/graph/dependency_graph.go`, `DependenciesOf`): its dependencies (explicit and
through inputs), the resource it is `deletedWith`, its provider, its parent, and the
children of a component it depends on.

A delete of a resource `deletedWith` another being deleted is skipped, and so is one of a
resource with `retainOnDelete` (`pkg/resource/deploy/step.go`, `DeleteStep.Apply`).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

Resource = dict[str, Any]


def _direct(resource: Resource) -> set[str]:
    options = resource.get("options", {})
    found = set(resource.get("dependencies", []))
    for urns in resource.get("propertyDependencies", {}).values():
        found.update(urns)
    found.update(filter(None, [options.get("deletedWith"), resource.get("provider")]))
    return found


def _children(resources: Sequence[Resource]) -> dict[str, set[str]]:
    """Each resource's transitive children."""
    parent = {r["urn"]: r.get("parent") for r in resources}
    found: dict[str, set[str]] = {urn: set() for urn in parent}
    for urn in parent:
        above = parent[urn]
        while above in found:
            found[above].add(urn)
            above = parent[above]
    return found


def _reaches(edges: dict[str, set[str]], start: str, goal: str) -> bool:
    seen, todo = set(), [start]
    while todo:
        urn = todo.pop()
        if urn == goal:
            return True
        if urn not in seen:
            seen.add(urn)
            todo += edges.get(urn, ())
    return False


def dependencies(resources: Sequence[Resource]) -> dict[str, set[str]]:
    """URN -> the URNs of the stack's resources it depends on, as the engine orders deletes.

    A component's children count as dependencies of what depends on the component unless
    they depend on that resource themselves: the engine takes only those before it in the
    state's order, which has no such cycle."""
    known = {r["urn"] for r in resources}
    parent = {r["urn"]: {r["parent"]} & known if r.get("parent") else set() for r in resources}
    direct = {r["urn"]: (_direct(r) & known) | parent[r["urn"]] for r in resources}
    children = _children(resources)
    custom = {r["urn"]: r.get("custom", True) for r in resources}
    out = {}
    for r in resources:
        urn = r["urn"]
        implied = {
            child
            for dep in _direct(r) & known
            if not custom[dep]
            for child in children[dep]
            if child != urn and not _reaches(direct, child, urn)
        }
        out[urn] = direct[urn] | implied
    return out


def destroy_waves(resources: Sequence[Resource]) -> list[list[str]]:
    """The URNs `pulumi destroy` deletes together, wave by wave, first wave first."""
    graph = dependencies(resources)
    left = set(graph)
    layers = []
    while left:
        layer = sorted(urn for urn in left if not graph[urn] & left)
        if not layer:
            raise ValueError(f"the dependencies of {sorted(left)} form a cycle")
        layers.append(layer)
        left -= set(layer)
    return layers[::-1]


@dataclass(frozen=True, order=True)
class Deletion:
    type: str
    name: str
    # Why the engine makes no delete call, if it makes none, or what a remote component stands for.
    note: str | None = None


def _deletion(resource: Resource, by_urn: dict[str, Resource]) -> Deletion:
    options = resource.get("options", {})
    note = None
    if not resource.get("custom", True):
        note = REMOTE
    elif options.get("retainOnDelete"):
        note = "retainOnDelete: left in place"
    elif options.get("deletedWith") in by_urn:
        note = f"deleted with {by_urn[options['deletedWith']]['name']}"
    return Deletion(resource["type"], resource["name"], note)


REMOTE = "remote component: its provider's resources, not in the render, are deleted by here"


def destroy_lines(resources: Sequence[Resource]) -> list[str]:
    """The waves as people read them: each wave's resources, components left out (deleting a
    component calls no provider), and waves left with none dropped. A component with no
    children in the render is a remote one (pulumi-eks' Cluster), whose children (the EKS
    cluster, its roles and security group) its provider registers in a real deploy: they are
    deleted after everything that depends on the component and before it, so by its wave."""
    by_urn = {r["urn"]: r for r in resources}
    children = _children(resources)

    def shown(urn: str) -> bool:
        return by_urn[urn].get("custom", True) or not children[urn]

    lines = []
    waves = [[by_urn[urn] for urn in wave if shown(urn)] for wave in destroy_waves(resources)]
    for n, wave in enumerate([w for w in waves if w], start=1):
        lines.append(f"wave {n}:")
        for deletion in sorted(_deletion(r, by_urn) for r in wave):
            note = f"  ({deletion.note})" if deletion.note else ""
            lines.append(f"  {deletion.type}  {deletion.name}{note}")
    return lines
