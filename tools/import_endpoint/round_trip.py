"""Whether endpoint items write their manifests back: the items rendered inside a stack, as
`pulumi up` would register them, and the spec of each original compared with what the stack
writes, field for field.

Three ways a field can come back:
- the same value: what a round trip needs, for every field of the spec;
- lost or changed: the item cannot stand for the manifest, and the field is named;
- added, where the original sets nothing: listed with the setting that writes it, since the
  first `pulumi up` after adopting writes it too. Two additions change what the endpoint is and
  count as changes: a `pdSpec` on a colocated endpoint, and an `intelligentRoutingSpec` on one
  without, which the operator cannot add to a live object.

Values compare as the pods receive them: lists (command lines, environment variables, tags) in
their order and spelling, since the operator renders them into the pods' template in that
order; a Kubernetes quantity (`1` or `"1"`) by its text, which the operator parses alike.
"""

import json
from dataclasses import dataclass, field
from typing import Any

from components.endpoint.generation import WAIT_FOR
from components.endpoint.manifest import ENDPOINT_LABEL
from components.endpoint.overrides import Fixed, Owners, owned_field
from infra import program
from infra.config_errors import ConfigError, config_key
from tools.render.render import RenderResult, run_program
from tools.render.stack_config import StackConfig

ENDPOINTS_KEY = config_key("endpoints")
# Additions that make another endpoint of the one adopted, and why.
CHANGES_WHAT_IT_IS = {
    "spec.pdSpec": "the stack would make a DPD endpoint of this colocated one",
    "spec.intelligentRoutingSpec": (
        "the stack would turn intelligent routing on, which the operator cannot do to a live "
        "endpoint (the CRD: it cannot be modified)"
    ),
}
# Why the stack writes what it adds to metadata.
_METADATA_REASONS = {
    f"metadata.labels.{ENDPOINT_LABEL}": "the label that finds the endpoint's object",
    f"metadata.annotations.{WAIT_FOR}": "`pulumi up` waits until the operator says it serves",
}


@dataclass
class Comparison:
    """What the stack does to one manifest's fields."""

    changed: list[tuple[str, str]] = field(default_factory=list)
    added: list[str] = field(default_factory=list)


def _shown(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def _compare(path: str, original: Any, rendered: Any, out: Comparison) -> None:
    if isinstance(original, dict):
        if not isinstance(rendered, dict):
            out.changed.append((path, f"the stack writes {_shown(rendered)} for a mapping"))
            return
        for key, value in original.items():
            here = f"{path}.{key}"
            if key not in rendered:
                out.changed.append((here, "the stack drops it"))
            else:
                _compare(here, value, rendered[key], out)
        out.added += [f"{path}.{key}" for key in rendered if key not in original]
    elif original != rendered and not _same_quantity(path, original, rendered):
        out.changed.append((path, f"the stack writes {_shown(rendered)} for {_shown(original)}"))


def _same_quantity(path: str, original: Any, rendered: Any) -> bool:
    in_resources = ".requests." in path or ".limits." in path
    kinds = (str, int, float)
    return in_resources and isinstance(original, kinds) and str(original) == str(rendered)


def compare(original: dict[str, Any], rendered: dict[str, Any]) -> Comparison:
    """What the stack does to the spec and the name and namespace of the `original` manifest,
    given the object it registers (`rendered`)."""
    out = Comparison()
    metadata = original["metadata"]
    for key, value in (
        ("name", metadata["name"]),
        ("namespace", metadata.get("namespace", "default")),
    ):
        if rendered["metadata"].get(key) != value:
            out.changed.append(
                (
                    f"metadata.{key}",
                    f"the stack writes {rendered['metadata'].get(key)!r} for {value!r}",
                )
            )
    for key in ("labels", "annotations"):
        out.added += [
            f"metadata.{key}.{k}"
            for k in rendered["metadata"].get(key, {})
            if k not in metadata.get(key, {})
        ]
    _compare("spec", original["spec"], rendered["spec"], out)
    for added in list(out.added):
        if added in CHANGES_WHAT_IT_IS:
            out.added.remove(added)
            out.changed.append((added, CHANGES_WHAT_IT_IS[added]))
    return out


def addition_reason(path: str, owners: Owners) -> str:
    """Why the stack writes `path`, a field the original leaves out, with `owners` the fields
    the settings own in the endpoint's mode."""
    if path in _METADATA_REASONS:
        return _METADATA_REASONS[path]
    spec_path = path.removeprefix("spec.").split("[", 1)[0]
    owned = owned_field(spec_path, owners)
    if owned is None:
        return "a default of the stack"
    owner = owners[owned]
    if isinstance(owner, Fixed):
        return f"fixed, because {owner.why}"
    return f"the setting {owner} writes it"


def with_items(config: StackConfig, items: list[dict[str, Any]], *, replace: bool) -> StackConfig:
    """`config` with `items` added to its endpoints (or in their place)."""
    values = dict(config.values)
    kept = [] if replace else json.loads(values.get(ENDPOINTS_KEY, "[]"))
    values[ENDPOINTS_KEY] = json.dumps([*kept, *items])
    return StackConfig(values, config.secret_keys)


def render_stack(
    stack: str, config: StackConfig, account_id: str | None = None
) -> RenderResult | list[str]:
    """What the stack registers, or the problems that stop it."""
    try:
        return run_program(stack, config, program.main, account_id)
    except ConfigError as invalid:
        return invalid.problems


def registered_object(result: RenderResult, name: str, namespace: str) -> Any:
    """The registration of the InferenceEndpointConfig named `name` in `namespace`."""
    for resource in result.resources:
        metadata = resource.inputs.get("metadata", {})
        if resource.type.endswith(":InferenceEndpointConfig") and (
            metadata.get("name"),
            metadata.get("namespace"),
        ) == (name, namespace):
            return resource
    return None
