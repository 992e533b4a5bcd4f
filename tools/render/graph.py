"""The stack as a picture: its top-level components and the dependencies between them.

Works on resources as `resources.json` lists them, so that a render and a diff read the same
thing. A resource belongs to the top-level component it sits under; a component depends on
another when any of its resources waits for one of the other's (a dependency or a provider).
"""

import re
from collections import Counter
from collections.abc import Collection, Sequence
from typing import Any

from infra.config_errors import PROJECT

Resource = dict[str, Any]


def owners(resources: Sequence[Resource]) -> dict[str, str]:
    """Each resource's URN -> the URN of the top-level resource it sits under."""
    by_urn = {r["urn"]: r for r in resources}

    def top(resource: Resource) -> str:
        while resource.get("parent") in by_urn:
            resource = by_urn[resource["parent"]]
        return resource["urn"]

    return {urn: top(resource) for urn, resource in by_urn.items()}


def resource_counts(resources: Sequence[Resource]) -> dict[str, int]:
    """Top-level URN -> how many resources it holds, itself included, counting this project's
    own components as none and pulumi-eks's Cluster as one."""
    owner = owners(resources)
    counts: Counter[str] = Counter({urn: 0 for urn in set(owner.values())})
    for resource in resources:
        counts[owner[resource["urn"]]] += not resource["type"].startswith(f"{PROJECT}:")
    return dict(counts)


def edges(resources: Sequence[Resource]) -> set[tuple[str, str]]:
    """(earlier, later) top-level URNs: `later` holds a resource waiting for one of `earlier`'s."""
    owner = owners(resources)
    found = set()
    for resource in resources:
        waits_for = [*resource["dependencies"], *filter(None, [resource.get("provider")])]
        for dependency in waits_for:
            earlier, later = owner.get(dependency), owner[resource["urn"]]
            if earlier is not None and earlier != later:
                found.add((earlier, later))
    return found


def node_id(name: str) -> str:
    return "n_" + re.sub(r"[^A-Za-z0-9]", "_", name)


def mermaid(resources: Sequence[Resource], highlight: Collection[str] = ()) -> str:
    """A Mermaid flowchart; the top-level URNs in `highlight` are drawn as changed."""
    by_urn = {r["urn"]: r for r in resources}
    counts = resource_counts(resources)
    lines = ["flowchart LR"]
    for urn in sorted(counts):
        top = by_urn[urn]
        kind = top["type"].rsplit(":", 1)[1]
        plural = "" if counts[urn] == 1 else "s"
        lines.append(
            f'  {node_id(top["name"])}["{top["name"]}<br/>{kind} · {counts[urn]} resource{plural}"]'
        )
    for earlier, later in sorted(edges(resources)):
        lines.append(f"  {node_id(by_urn[earlier]['name'])} --> {node_id(by_urn[later]['name'])}")
    changed = sorted(node_id(by_urn[urn]["name"]) for urn in highlight if urn in by_urn)
    if changed:
        lines.append("  classDef changed fill:#fff3b0,stroke:#b45309,stroke-width:3px")
        lines.append(f"  class {','.join(changed)} changed")
    return "\n".join(lines) + "\n"
