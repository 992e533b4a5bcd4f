"""The values the mocks make up, read as references to the resource that made them.

Every value the mocks make up (an ID, an ARN, an API endpoint) carries the resource's ID
(tools/render/mocks/), derived in a way that changes between revisions; each render is read
with every such ID as `⟨URN⟩`, so two renders of a resource with the same inputs compare equal.
A base whose made-up values did not carry the ID (an EKS endpoint, before) is matched where the
same input takes it from the same resource on both sides (`propertyDependencies`).
"""

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

Resource = dict[str, Any]
REFERENCE = re.compile(r"⟨([^⟩]+)⟩")


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, str):
        yield value


def _rewritten(value: Any, rewrite: Callable[[str], str]) -> Any:
    """`value` with `rewrite` applied to every string in it, keys included."""
    if isinstance(value, dict):
        return {rewrite(k): _rewritten(v, rewrite) for k, v in value.items()}
    if isinstance(value, list):
        return [_rewritten(v, rewrite) for v in value]
    return rewrite(value) if isinstance(value, str) else value


def _replacer(values: dict[str, str]) -> Callable[[str], str]:
    """A function replacing each of `values`' keys, longest first, by its value."""
    if not values:
        return lambda text: text
    pattern = re.compile("|".join(map(re.escape, sorted(values, key=len, reverse=True))))
    return lambda text: pattern.sub(lambda found: values[found.group()], text)


def _made_up_ids(resources: Sequence[Resource]) -> dict[str, str]:
    """Each ID the mocks made up, with its reference. A Kubernetes object's ID is its name,
    and an ID that is one of the resource's own inputs (a bucket's name) is no reference."""
    return {
        resource["id"]: f"⟨{resource['urn']}⟩"
        for resource in resources
        if len(resource.get("id") or "") >= 6
        and not resource["type"].startswith(("kubernetes:", "pulumi:providers:"))
        and resource["id"] not in set(_strings(resource["inputs"]))
    }


def with_references(resources: Sequence[Resource]) -> list[Resource]:
    """`resources` with every ID the mocks made up, wherever it is, as its reference."""
    rewrite = _replacer(_made_up_ids(resources))
    return [rewritten(r, rewrite) for r in resources]


def _pattern(text: str) -> re.Pattern[str] | None:
    """`text` as a pattern in which each reference matches whatever the other side has."""
    parts = REFERENCE.split(text)
    if len(parts) == 1:
        return None
    return re.compile(
        "".join(re.escape(part) if i % 2 == 0 else "(.+?)" for i, part in enumerate(parts))
    )


def learned(
    leaves: Sequence[tuple[Resource, str, Any, Any]],
) -> Callable[[str], str]:
    """What a base's made-up values stand for, read from leaves (base resource, input key,
    base value, head value) where the head holds references: a base value that matches
    around them, in an input the base also takes from those resources."""
    found: dict[str, str] = {}
    for base, key, old, new in leaves:
        pattern = _pattern(new) if isinstance(new, str) and isinstance(old, str) else None
        matched = pattern.fullmatch(old) if pattern else None
        if not matched:
            continue
        sources = set(base.get("propertyDependencies", {}).get(key, []))
        for value, urn in zip(matched.groups(), REFERENCE.findall(new), strict=True):
            if urn in sources and not REFERENCE.search(value):
                found[value] = f"⟨{urn}⟩"
    return _replacer(found)


def referenced(value: Any) -> set[str]:
    return {urn for text in _strings(value) for urn in REFERENCE.findall(text)}


def rewritten(resource: Resource, rewrite: Callable[[str], str]) -> Resource:
    return {**resource, "inputs": _rewritten(resource["inputs"], rewrite)}
