"""What changes between two renders' `resources.json`: resources added, removed, updated or
replaced, matched by URN. An input a provider cannot change in place replaces, and so does a
replacement a resource goes down with (`cascade`); for a serving endpoint either is an outage.
Resource options act as the engine applies them: `ignoreChanges` is shown but changes nothing,
`replaceOnChanges` replaces, a delete `deletedWith` a resource deleted in the same run is
skipped, and `retainOnDelete` and `protect` are said where a delete would meet them.
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from components.endpoint.kind import API_VERSION, KIND
from tools.diff.cascade import dependent_replacements
from tools.diff.node_changes import HYPERPOD_TYPE, node_outages, replaced_types
from tools.diff.property_paths import covers, parse
from tools.diff.references import REFERENCE, learned, referenced, rewritten, with_references
from tools.diff.replacements import replacing
from tools.diff.serving_modes import Serving, mode_change

Resource = dict[str, Any]
Kind = Literal["add", "remove", "update", "replace"]


@dataclass(frozen=True)
class PathChange:
    path: str
    old: Any
    new: Any
    # The replace-triggering input this change falls under, if any.
    replaces: str | None = None
    # Under the resource's ignoreChanges: the deployed value stays.
    ignored: bool = False


@dataclass(frozen=True)
class Change:
    kind: Kind
    urn: str
    type: str
    name: str
    paths: list[PathChange] = field(default_factory=list)
    # Why it is replaced though none of its own inputs forces it: what it goes down with.
    because: str | None = None
    # What the engine does with the delete this change needs, when that is not plain.
    note: str | None = None
    # What an update takes down though it replaces nothing, such as the nodes of an instance
    # group whose type changes.
    outages: tuple[str, ...] = ()
    # An endpoint's: the instance type of the nodes its deployed generation runs on, when an
    # update of the HyperPod cluster takes them away (before the endpoint, which waits for it).
    loses_nodes: str | None = None
    # An endpoint's serving before and after, when it moves between DPD and aggregated.
    modes: tuple[Serving, Serving] | None = None


_ABSENT = object()
ENDPOINT_TYPE = f"kubernetes:{API_VERSION}:{KIND}"


def _as_json_document(value: Any) -> Any:
    """A JSON object or list inside a string (IAM policies, add-on configuration), or None."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return None
    return None


def _by_name(value: Any) -> dict[str, Any] | None:
    """A Kubernetes list of named entries (environment variables, ports) keyed by name, so an
    entry reads as `environmentVariables[PD_BUFFER_SIZE]` and an insertion shifts nothing."""
    if not isinstance(value, list) or not value:
        return None
    names = [item.get("name") if isinstance(item, dict) else None for item in value]
    if not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
        return None
    return dict(zip(names, value, strict=True))


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
    old_named, new_named = _by_name(old), _by_name(new)
    if old_named is not None and new_named is not None:
        return [
            change
            for name in sorted(old_named.keys() | new_named.keys())
            for change in changed_paths(
                old_named.get(name, _ABSENT), new_named.get(name, _ABSENT), f"{path}[{name}]"
            )
        ]
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        return [
            change
            for i, (a, b) in enumerate(zip(old, new, strict=True))
            for change in changed_paths(a, b, f"{path}[{i}]")
        ]
    return [(path, None if old is _ABSENT else old, None if new is _ABSENT else new)]


def _input_change(head: Resource, path: str, old: Any, new: Any) -> PathChange:
    options = head.get("options", {})
    if any(covers(pattern, path) for pattern in options.get("ignoreChanges", [])):
        return PathChange(path, old, new, ignored=True)
    return PathChange(
        path, old, new, replacing(head["type"], options.get("replaceOnChanges", []), path)
    )


def _update(base: Resource, head: Resource) -> Change | None:
    paths = [
        _input_change(head, path, old, new)
        for path, old, new in changed_paths(base["inputs"], head["inputs"])
    ]
    # The options the engine acts on: an alias only says which old URN the resource is.
    options = [
        {k: v for k, v in r.get("options", {}).items() if k != "aliases"} for r in (base, head)
    ]
    paths += [PathChange(f"options.{p}", old, new) for p, old, new in changed_paths(*options)]
    if all(p.ignored for p in paths):
        return None
    kind: Kind = "replace" if any(p.replaces for p in paths) else "update"
    return Change(kind, head["urn"], head["type"], head["name"], paths)


def _delete_note(resource: Resource, deleted: set[str], by_urn: dict[str, Resource]) -> str | None:
    """What the engine does with a delete (a removal, or a replacement's old half), if not plain."""
    options = resource.get("options", {})
    if options.get("protect"):
        return (
            "protected: pulumi up refuses to delete it; set its protect setting to false (or "
            "`pulumi state unprotect`) first"
        )
    if options.get("retainOnDelete"):
        return "retainOnDelete: left in place in AWS, only dropped from the stack"
    if options.get("deletedWith") in deleted:
        return f"deleted with {by_urn[options['deletedWith']]['name']}: no delete call of its own"
    return None


def _aliased(value: Any, renames: dict[str, str]) -> Any:
    """A base resource with every URN in it (its own, its parent's, its provider's, ...) as
    `head` knows it: each type an alias renamed (`pulumi.Alias(type_=...)`) as it is now, in
    the qualified type, which names the types of the resource's parents too, so a child
    inherits its parent's alias as the engine has it."""
    if isinstance(value, dict):
        return {k: _aliased(v, renames) for k, v in value.items()}
    if isinstance(value, list):
        return [_aliased(v, renames) for v in value]
    parts = value.split("::") if isinstance(value, str) and value.startswith("urn:pulumi:") else []
    if len(parts) != 4:
        return value
    parts[2] = "$".join(renames.get(t, t) for t in parts[2].split("$"))
    return "::".join(parts)


def matched(
    base: Sequence[Resource], head: Sequence[Resource]
) -> tuple[dict[str, Resource], dict[str, Resource]]:
    """Both renders by URN, as the engine matches them: a base resource under the URN an
    alias of `head` gives it, and every ID the mocks made up as a reference (references.py)."""
    renames = {
        former: r["type"] for r in head for former in r.get("options", {}).get("aliases", [])
    }
    before = {r["urn"]: r for r in with_references([_aliased(r, renames) for r in base])}
    after = {r["urn"]: r for r in with_references(head)}
    leaves = [
        (before[urn], parse(path)[0], old, new)
        for urn in before.keys() & after.keys()
        for path, old, new in changed_paths(before[urn]["inputs"], after[urn]["inputs"])
    ]
    rewrite = learned(leaves)
    return {urn: rewritten(r, rewrite) for urn, r in before.items()}, after


def _renewed_references(
    changes: dict[str, Change], before: dict[str, Resource], after: dict[str, Resource]
) -> bool:
    """Each kept resource holding the ID of a replaced one, as the engine sees it: that input
    is unknown until the new one exists, and replaces the holder where it forces replacement.
    Whether any change was added."""
    replaced = {urn for urn, c in changes.items() if c.kind == "replace"}

    def renew(text: str) -> str:
        return REFERENCE.sub(lambda m: f"⟨new {m[1]}⟩" if m[1] in replaced else m[0], text)

    grew = False
    for urn, resource in after.items():
        if urn not in before or not referenced(resource["inputs"]) & replaced:
            continue
        renewed = rewritten(resource, renew)["inputs"]
        known = {p.path for p in changes[urn].paths} if urn in changes else set()
        paths = [
            _input_change(resource, path, old, new)
            for path, old, new in changed_paths(resource["inputs"], renewed)
            if path not in known
        ]
        if not paths:
            continue
        grew = True
        earlier = changes.get(urn) or Change("update", urn, resource["type"], resource["name"])
        paths = earlier.paths + paths
        replaces = earlier.kind == "replace" or any(p.replaces for p in paths)
        changes[urn] = replace(earlier, kind="replace" if replaces else "update", paths=paths)
    return grew


def compare(base: Sequence[Resource], head: Sequence[Resource]) -> list[Change]:
    """The changes from `base` to `head`, in URN order, resources matched as `matched` does."""
    before, after = matched(base, head)
    changes: dict[str, Change] = {}
    for urn in sorted(before.keys() | after.keys()):
        if urn not in before:
            r = after[urn]
            changes[urn] = Change("add", urn, r["type"], r["name"])
        elif urn not in after:
            r = before[urn]
            changes[urn] = Change("remove", urn, r["type"], r["name"])
        elif change := _update(before[urn], after[urn]):
            changes[urn] = change
    kept = [r for urn, r in after.items() if urn in before]
    grew = True
    while grew:
        replaced = {urn for urn, c in changes.items() if c.kind == "replace"}
        dependents = dependent_replacements(replaced, kept)
        for urn, why in dependents.items():
            r = after[urn]
            paths = changes[urn].paths if urn in changes else []
            changes[urn] = Change("replace", urn, r["type"], r["name"], paths, because=why)
        grew = _renewed_references(changes, before, after) or bool(dependents)
    gone: set[str] = set()
    for urn, change in changes.items():
        if change.kind == "update" and change.type == HYPERPOD_TYPE:
            changes[urn] = replace(change, outages=tuple(node_outages(before[urn], after[urn])))
            gone |= replaced_types(before[urn], after[urn])
    for urn, change in changes.items():
        if change.type != ENDPOINT_TYPE or change.kind in ("add", "remove"):
            continue
        old_spec, new_spec = before[urn]["inputs"].get("spec", {}), after[urn]["inputs"]["spec"]
        on = old_spec.get("instanceType")
        changes[urn] = replace(
            change, loses_nodes=on if on in gone else None, modes=mode_change(old_spec, new_spec)
        )
    deleted = {urn for urn, c in changes.items() if c.kind in ("remove", "replace")}
    for urn, change in changes.items():
        if change.kind in ("remove", "replace"):
            note = _delete_note(before[urn], deleted, before)
            changes[urn] = replace(change, note=note)
    return [changes[urn] for urn in sorted(changes)]
