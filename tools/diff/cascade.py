"""What a replacement takes with it, as Pulumi's engine decides it.

Three rules of the engine (pulumi/pulumi, `pkg/resource/deploy/step_generator.go`, "dependent
replacements"):
- a resource whose provider is replaced is replaced too: a Kubernetes provider replaced for a
  new cluster takes every object it manages (the endpoint, the Helm release, namespaces);
- a resource `deletedWith` a replaced resource is replaced too: the old one's delete takes it;
- a resource replaced with deleteBeforeReplace is deleted first, so a resource that takes one of
  its outputs in an input that forces replacement is deleted and created again with it.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from tools.diff.replacements import replacing_when_unknown

Resource = dict[str, Any]


def _why_replaced(
    resource: Resource, replaced: set[str], by_urn: Mapping[str, Resource]
) -> str | None:
    provider = resource.get("provider")
    if provider in replaced:
        return f"its provider {by_urn[provider]['name']!r} is replaced with the cluster it reaches"
    if not resource.get("custom", True):
        return None
    deleted_with = resource.get("options", {}).get("deletedWith")
    if deleted_with in replaced:
        return f"it is deleted with {by_urn[deleted_with]['name']!r}, which is replaced"
    recorded = resource.get("options", {}).get("replaceOnChanges", [])
    for key, sources in sorted(resource.get("propertyDependencies", {}).items()):
        for source in sources:
            if source not in replaced:
                continue
            if by_urn[source].get("options", {}).get("deleteBeforeReplace"):
                trigger = replacing_when_unknown(resource["type"], recorded, key)
                if trigger:
                    return (
                        f"{key} comes from {by_urn[source]['name']!r}, which is deleted before "
                        f"it is replaced (replaces: {trigger})"
                    )
    return None


def dependent_replacements(replaced: set[str], existing: Sequence[Resource]) -> dict[str, str]:
    """URN -> why, of each of `existing` the replacements of `replaced` replace, transitively."""
    by_urn = {r["urn"]: r for r in existing}
    replaced = set(replaced)
    found: dict[str, str] = {}
    grew = True
    while grew:
        grew = False
        for urn in sorted(by_urn.keys() - replaced):
            why = _why_replaced(by_urn[urn], replaced, by_urn)
            if why:
                found[urn] = why
                replaced.add(urn)
                grew = True
    return found
