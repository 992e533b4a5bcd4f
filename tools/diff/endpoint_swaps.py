"""What a replaced endpoint does: swap to its new generation with no outage, or delete first.

An endpoint whose change the operator cannot make in place gets a new generation, under a new
name (components/endpoint/generation.py). Pulumi creates it first and deletes the old one
after, unless the program found that the cluster cannot hold both generations and set
`deleteBeforeReplace` (infra/endpoint_swaps.py): the head's sizing.json says which, with the
GPUs it counted. An endpoint replaced because its cluster is replaced goes down with it, a
swap or not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.endpoint.generation import stable_address
from tools.diff.serving_modes import mode_line
from tools.diff.stack_diff import ENDPOINT_TYPE as ENDPOINT
from tools.diff.stack_diff import Change

Plans = dict[str, dict[str, Any]]


def replacement_plans(sizing: dict[str, Any] | None) -> Plans:
    """The program's plan for each endpoint's replacement, by `<namespace>/<name>`, from a
    render's sizing.json (none from a render older than the plans)."""
    endpoints = (sizing or {}).get("endpoints", [])
    return {
        e["replacement"]["endpoint"]: e["replacement"] for e in endpoints if e.get("replacement")
    }


def _old_new(change: Change, path: str) -> tuple[Any, Any] | None:
    found = [(p.old, p.new) for p in change.paths if p.path == path]
    return found[0] if found else None


def _gpus(plan: dict[str, Any]) -> str:
    return (
        f"{plan['gpusDuring']} GPUs of {plan['instanceType']} at once ({plan['gpus']} each at "
        "their most)"
    )


def _held(plan: dict[str, Any]) -> str:
    return (
        f"the cluster's groups hold {plan['clusterGpus']} for endpoints that claim "
        f"{plan['claimedGpus']}"
    )


def _renamed(change: Change) -> str:
    renamed = _old_new(change, "spec.endpointName")
    if renamed is None or None in renamed:
        return ""
    old, new = renamed
    return (
        f" The SageMaker endpoint is renamed {old} → {new}: callers through SageMaker switch to "
        f"the new name (`pulumi stack output nextSteps` prints it); {old} stops answering "
        "when its generation is deleted."
    )


def mode_detail(change: Change) -> str:
    """What moving between DPD and aggregated does to the GPUs and the traffic; empty when the
    endpoint keeps its mode."""
    if change.modes is None:
        return ""
    namespace, name = change.name.split("/", 1)
    return mode_line(*change.modes, stable_address(name, namespace))


def is_swap(change: Change, plans: Plans) -> bool:
    """A replacement of an endpoint that creates its new generation first: no outage."""
    plan = plans.get(change.name)
    return (
        change.type == ENDPOINT
        and change.kind == "replace"
        and change.because is None
        and plan is not None
        and plan["createFirst"]
        and change.loses_nodes is None
    )


def swap_line(change: Change, plans: Plans) -> str:
    plan = plans[change.name]
    names = _old_new(change, "metadata.name") or ("the old generation", "the new one")
    old, new = names
    namespace, name = change.name.split("/", 1)
    held = (
        f", and {_held(plan)}"
        if plan["clusterGpus"] is not None
        else "; the cluster is not the stack's, so whether it holds them is not known here: if "
        f"not, the new pods stay Pending, pulumi up stops when its wait runs out, and {old} "
        "goes on serving"
    )
    return (
        f"endpoint `{change.name}`: replaced creation-first, with no outage: {new} starts "
        f"beside {old}; pulumi up waits until it reports ready, moves "
        f"{stable_address(name, namespace)} to it, then deletes {old}. Both hold "
        f"{_gpus(plan)}{held}.{mode_detail(change)}{_renamed(change)}"
    )


def delete_first_detail(change: Change, plans: Plans) -> str:
    """Why an endpoint replacement deletes first, and what would let it swap."""
    plan = plans.get(change.name)
    if change.because is not None or plan is None or plan["clusterGpus"] is None:
        return ""
    per_node = GPU_INSTANCE_TYPES[plan["instanceType"]].gpus
    short = plan["claimedGpus"] + plan["gpus"] - plan["clusterGpus"]
    nodes = max(1, math.ceil(short / per_node))
    moved = _old_new(change, "spec.instanceType")
    # The program sees only the head's config: both generations are counted on the new type.
    counted = (
        f" (the program counts both on it: it does not see that the deployed one runs on "
        f"{moved[0]})"
        if moved is not None
        else ""
    )
    return (
        f" It deletes first because a swap would hold {_gpus(plan)}{counted}, and {_held(plan)}: "
        f"{nodes} more {plan['instanceType']} node{'s' if nodes > 1 else ''} (an instanceCount) "
        f"would let it swap with no outage.{_renamed(change)}"
    )


def lost_nodes_line(change: Change) -> str:
    """An endpoint whose deployed generation runs on nodes the HyperPod update takes away."""
    gone = change.loses_nodes
    return (
        f"endpoint `{change.name}`: its deployed generation runs on the {gone} nodes that the "
        "HyperPod update below takes away, which Pulumi makes before the endpoint (it waits "
        "for the cluster), so it stops with them, creation-first or not; no answers until the "
        "new generation's pods have pulled the image and loaded the weights. An outage-free "
        f"move keeps those nodes until the new generation is ready: add the new type as a "
        f"group of its own, and remove the {gone} group in a later update.{_renamed(change)}"
    )


def swap_lines(changes: Sequence[Change], plans: Plans) -> list[str]:
    return [swap_line(c, plans) for c in changes if is_swap(c, plans)]
