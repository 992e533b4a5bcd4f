"""What changes between two renders of a stack: resources added, removed, updated or replaced.

Works on `resources.json` documents. Resources are matched by URN; an input change that a
provider cannot make in place marks the resource as replaced, which for a serving endpoint
means an outage.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from infra.offline.replacements import replacing

Resource = dict[str, Any]
Kind = Literal["add", "remove", "update", "replace"]


@dataclass(frozen=True)
class PathChange:
    path: str
    old: Any
    new: Any
    # The replace-triggering input this change falls under, if any.
    replaces: str | None = None


@dataclass(frozen=True)
class Change:
    kind: Kind
    urn: str
    type: str
    name: str
    paths: list[PathChange] = field(default_factory=list)


_ABSENT = object()


def _as_json_document(value: Any) -> Any:
    """A JSON object or list inside a string (IAM policies, add-on configuration), or None."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return None
    return None


def changed_paths(old: Any, new: Any, path: str = "") -> list[tuple[str, Any, Any]]:
    """(path, old, new) of every leaf that differs; absent sides are None."""
    if old == new:
        return []
    old_doc, new_doc = _as_json_document(old), _as_json_document(new)
    if old_doc is not None and new_doc is not None:
        return changed_paths(old_doc, new_doc, path)
    if isinstance(old, dict) and isinstance(new, dict):
        return [
            change
            for key in sorted(old.keys() | new.keys())
            for change in changed_paths(
                old.get(key, _ABSENT), new.get(key, _ABSENT), f"{path}.{key}" if path else key
            )
        ]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [
            change
            for i, (a, b) in enumerate(zip(old, new, strict=True))
            for change in changed_paths(a, b, f"{path}[{i}]")
        ]
    return [(path, None if old is _ABSENT else old, None if new is _ABSENT else new)]


def _update(base: Resource, head: Resource) -> Change | None:
    recorded = head.get("options", {}).get("replaceOnChanges", [])
    paths = [
        PathChange(path, old, new, replacing(head["type"], recorded, path))
        for path, old, new in changed_paths(base["inputs"], head["inputs"])
    ]
    paths += [
        PathChange(f"options.{path}", old, new)
        for path, old, new in changed_paths(base.get("options", {}), head.get("options", {}))
    ]
    if not paths:
        return None
    kind: Kind = "replace" if any(p.replaces for p in paths) else "update"
    return Change(kind, head["urn"], head["type"], head["name"], paths)


def compare(base: Sequence[Resource], head: Sequence[Resource]) -> list[Change]:
    """The changes from `base` to `head`, in URN order."""
    before, after = {r["urn"]: r for r in base}, {r["urn"]: r for r in head}
    changes = []
    for urn in sorted(before.keys() | after.keys()):
        if urn not in before:
            r = after[urn]
            changes.append(Change("add", urn, r["type"], r["name"]))
        elif urn not in after:
            r = before[urn]
            changes.append(Change("remove", urn, r["type"], r["name"]))
        elif change := _update(before[urn], after[urn]):
            changes.append(change)
    return changes
