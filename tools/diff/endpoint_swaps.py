"""What a change to an endpoint does to its callers, in-cluster, through SageMaker and through
its load balancer (components/endpoint/generation.py): rolled in place, swapped to a new
generation, or deleted first, with the room the head's sizing.json counted
(infra/rollout_room.py). An endpoint replaced with its cluster goes down with it.
"""

import math
from collections.abc import Sequence
from typing import Any

from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.endpoint.generation import POD_TEMPLATE, stable_address
from components.endpoint.routing import routing_service_host
from tools.diff.property_paths import covers
from tools.diff.serving_modes import mode_line
from tools.diff.stack_diff import ENDPOINT_TYPE as ENDPOINT
from tools.diff.stack_diff import Change

Plans = dict[str, dict[str, Any]]


def replacement_plans(sizing: dict[str, Any] | None) -> Plans:
    """The program's plan for each endpoint (`<namespace>/<name>`), from a sizing.json."""
    endpoints = (sizing or {}).get("endpoints", [])
    return {
        e["replacement"]["endpoint"]: e["replacement"] for e in endpoints if e.get("replacement")
    }


def _old_new(change: Change, path: str) -> tuple[Any, Any] | None:
    return next(((p.old, p.new) for p in change.paths if p.path == path), None)


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


def _address(change: Change, plan: dict[str, Any] | None) -> str:
    """The in-cluster address callers keep: the stack's alias with newName, else the router."""
    namespace, name = change.name.split("/", 1)
    if plan is not None and plan.get("renames") is False:
        return routing_service_host(name, namespace)
    return stable_address(name, namespace)


def _renamed(change: Change) -> str:
    renamed = _old_new(change, "spec.endpointName")
    if renamed is None or None in renamed:
        return ""
    old, new = renamed
    return (
        f" SageMaker: renamed {old} → {new}; callers switch to the new name (`pulumi stack "
        f"output nextSteps` prints it), and {old} stops answering when its generation goes."
    )


def mode_detail(change: Change, plans: Plans | None = None) -> str:
    if change.modes is None:
        return ""
    return mode_line(*change.modes, _address(change, (plans or {}).get(change.name)))


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
    old, new = _old_new(change, "metadata.name") or ("the old generation", "the new one")
    held = (
        f", and {_held(plan)}"
        if plan["clusterGpus"] is not None
        else "; the cluster is not the stack's, so whether it holds them is not known here: if "
        f"not, the new pods stay Pending, pulumi up stops when its wait runs out, and {old} "
        "goes on serving"
    )
    routed = change.modes is None or change.modes[1].routed
    moved = f"{_address(change, plan)} moves to it, " if routed else ""
    return (
        f"endpoint `{change.name}`: replaced creation-first, with no outage: {new} starts "
        f"beside {old}; once it reports ready, in-cluster {moved}{old} answers "
        f"{plan.get('drainSeconds', 0)} s more (drainSeconds), then goes with its load "
        f"balancer, and callers of that take the new one's hostname. Both hold "
        f"{_gpus(plan)}{held}.{mode_detail(change, plans)}{_renamed(change)}"
    )


def delete_first_detail(change: Change, plans: Plans) -> str:
    """Why an endpoint replacement deletes first, what callers see, and what would swap it."""
    plan = plans.get(change.name)
    if change.because is not None or plan is None:
        return ""
    if plan.get("renames") is not False:
        return f" It deletes first because a swap{_room(change, plan)}{_renamed(change)}"
    holds = plan.get("holdsBoth")
    swap = (
        f"A swap under new names (rollout: newName){_room(change, plan)}"
        if holds is False
        else "rollout: newName would swap it with no outage, under new names"
        + ("." if holds else ", if the cluster holds both generations.")
    )
    return (
        f" It deletes first because it keeps its names (rollout keepName): callers keep "
        f"{_address(change, plan)} and the SageMaker endpoint's name, and the load balancer "
        f"comes back under a new hostname. {swap}"
    )


def _room(change: Change, plan: dict[str, Any]) -> str:
    """The GPUs a swap would hold, and the nodes that would let it."""
    per_node = GPU_INSTANCE_TYPES[plan["instanceType"]].gpus
    short = plan["claimedGpus"] + plan["gpus"] - plan["clusterGpus"]
    nodes = max(1, math.ceil(short / per_node))
    return (
        f" would hold {_gpus(plan)}{_counted(change)}, and {_held(plan)}: {nodes} more "
        f"{plan['instanceType']} node{'s' if nodes > 1 else ''} (an instanceCount) would let it "
        "swap with no outage."
    )


def _counted(change: Change) -> str:
    # The program sees only the head's config: the deployed pods are counted on the new type.
    moved = _old_new(change, "spec.instanceType")
    if moved is None:
        return ""
    return (
        f" (the program counts the deployed pods on it too: it does not see that they run on "
        f"{moved[0]})"
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


def _rolls(change: Change) -> bool:
    return any(
        any(covers(t, p.path) for t in POD_TEMPLATE) and not p.path.endswith(".replicas")
        for p in change.paths
    )


def roll_line(change: Change, plans: Plans) -> str:
    plan = plans.get(change.name) or {}
    pair = (
        " Prefill and decode roll apart, old pods handing KV to new ones for a while: the "
        "change leaves the engine, its flags and environment, the weights and the KV cache as "
        "they are, so both speak the same KV format."
        if plan.get("dpd")
        else ""
    )
    room = {
        True: "",
        None: " The cluster is not the stack's, so whether it has room for them is not known.",
        False: (
            f" The {plan.get('instanceType')} nodes have no room for them{_counted(change)}: "
            "they stay Pending, the roll stalls with the old pods serving, and pulumi up may "
            "wait out its 60 minutes; add a node (an instanceCount) first."
        ),
    }[plan.get("rolls", True)]
    return (
        f"endpoint `{change.name}`: updated in place; the operator rolls its pods, each role "
        "of fewer than four starting one new pod before it stops an old one. In-cluster, "
        "SageMaker and load-balancer callers keep their addresses and answers throughout."
        f"{pair}{room}"
    )


def swap_and_roll_lines(changes: Sequence[Change], plans: Plans) -> list[str]:
    return [swap_line(c, plans) for c in changes if is_swap(c, plans)] + [
        roll_line(c, plans)
        for c in changes
        if c.type == ENDPOINT and c.kind == "update" and c.loses_nodes is None and _rolls(c)
    ]
