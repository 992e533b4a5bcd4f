"""An endpoint manifest's serving mode as the diff reads it: DPD (`pdSpec`: prefill and decode
pods) or aggregated (top-level `replicas` of pods requesting `worker.resources`), with its pods,
their GPUs and whether the operator's router stands in front. The operator cannot drop or add
`pdSpec` in place ("a new deployment without pdSpec", the seed), so the program makes a change
of mode a new generation (components/endpoint/generation.py).
"""

from dataclasses import dataclass
from typing import Any

GPU_RESOURCE = "nvidia.com/gpu"


@dataclass(frozen=True)
class Serving:
    mode: str
    pods: str
    gpus: int
    routed: bool

    def describe(self) -> str:
        return f"{self.pods} ({self.gpus} GPUs)"


def _count(value: Any, default: int = 0) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _gpus(resources: Any) -> int:
    resources = resources if isinstance(resources, dict) else {}
    for side in ("requests", "limits"):
        if GPU_RESOURCE in (resources.get(side) or {}):
            return _count(resources[side][GPU_RESOURCE])
    return 0


def _pods(counts: list[tuple[str, int]]) -> str:
    total = sum(n for _, n in counts)
    return " and ".join(f"{n} {role}" for role, n in counts) + f" pod{'s' * (total != 1)}"


def serving_of(spec: dict[str, Any]) -> Serving:
    """The serving mode of an InferenceEndpointConfig's `spec`, with its configured pods."""
    routed = bool((spec.get("intelligentRoutingSpec") or {}).get("enabled"))
    pd = spec.get("pdSpec")
    if isinstance(pd, dict):
        roles = [("prefill", pd.get("prefillSpec") or {}), ("decode", pd.get("decodingSpec") or {})]
        counts = [(name, _count(role.get("replicas"), 1)) for name, role in roles]
        gpus = sum(
            n * _gpus(role.get("resources"))
            for (_, n), (_, role) in zip(counts, roles, strict=True)
        )
        # The operator creates the DPD router with pdSpec, intelligentRoutingSpec or not.
        return Serving("DPD", _pods(counts), gpus, True)
    replicas = _count(spec.get("replicas"), 1)
    gpus = replicas * _gpus((spec.get("worker") or {}).get("resources"))
    return Serving("aggregated", _pods([("serving", replicas)]), gpus, routed)


def mode_change(
    old_spec: dict[str, Any], new_spec: dict[str, Any]
) -> tuple[Serving, Serving] | None:
    """The endpoint's serving before and after, when its mode changes."""
    old, new = serving_of(old_spec), serving_of(new_spec)
    return (old, new) if old.mode != new.mode else None


def mode_line(old: Serving, new: Serving, stable_address: str) -> str:
    text = (
        f" It changes from {old.mode} to {new.mode}: {old.describe()} give way to {new.describe()}."
    )
    if old.routed and not new.routed:
        text += (
            f" The {new.mode} endpoint has no router (no routingStrategy), so the stack's "
            f"in-cluster address {stable_address} is deleted with the old generation: callers "
            "move to its load balancer or SageMaker endpoint, or set routingStrategy to keep "
            "a router and that address."
        )
    elif new.routed and not old.routed:
        text += (
            f" The {new.mode} endpoint has the operator's router, so the stack's in-cluster "
            f"address {stable_address} appears once the new generation serves."
        )
    return text
