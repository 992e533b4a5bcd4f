"""The known ways a DPD endpoint fails, each a rule over what `diagnose` read: one finding per
signature seen, with its cause, the line that shows it, the stack key to change and the value
to try.

Sources: AWS's "Disaggregated Prefill and Decode (DPD) deployment issues" page
(sagemaker-hyperpod-model-deployment-ts-dpd: pods in ContainerCreating over 10 minutes with
`Failed to pull image` or `MountVolume.SetUp failed`, pods at 2/3 Ready while the worker loads
70B for 5-10 minutes, `EngineDeadError` or `TimeoutError` from an operator older than 3.2,
`Retrieved 0 out of N required tokens` from a wrong `pd_role`, different images or an unset
`PYTHONHASHSEED`, `Failed to allocate memory object, retrying...` from a full PD buffer (16 or
32 GiB, or more decoders), KV throughput under 1 GB/s when EFA is not used); AWS's DPD guide
(sagemaker-hyperpod-model-deployment-dpd: the roles' `pd_role` lines, the healthy `Retrieved
6035 out of 6035` at 176 GB/s, the router's `Conditional routing` lines); LMCache's source for
the lines themselves (log_lines.py).
"""

from collections.abc import Callable

from components.endpoint.engines.engine import VLLM
from components.endpoint.spec import EndpointSpec
from tools.diagnose.kv_signatures import (
    buffer_full,
    kv_not_retrieved,
    routing_shares,
    slow_transfers,
    wrong_roles,
)
from tools.diagnose.observed import Finding, Observed
from tools.diagnose.pod_signatures import (
    engine_death,
    image_or_mount,
    no_pods,
    operator_failure,
    still_loading,
)

# Each rule, by the endpoints it reads: any endpoint's objects and pods, vLLM's engine lines,
# or a DPD pair's roles, KV transfers and router.
RULES: tuple[tuple[Callable[[Observed], list[Finding]], str], ...] = (
    (operator_failure, "any"),
    (no_pods, "any"),
    (image_or_mount, "any"),
    (still_loading, "any"),
    (engine_death, "vllm"),
    (wrong_roles, "dpd"),
    (kv_not_retrieved, "dpd"),
    (buffer_full, "dpd"),
    (slow_transfers, "dpd"),
    (routing_shares, "dpd"),
)


def _applies(spec: EndpointSpec, kind: str) -> bool:
    return (
        kind == "any"
        or (kind == "vllm" and spec.engine == VLLM)
        or (kind == "dpd" and not spec.aggregated)
    )


def applicable(spec: EndpointSpec) -> tuple[list[str], list[str]]:
    """The signatures that apply to the endpoint (its engine, DPD or colocated), and the others."""
    names = {rule.__name__.replace("_", "-"): _applies(spec, kind) for rule, kind in RULES}
    return [n for n, yes in names.items() if yes], [n for n, yes in names.items() if not yes]


def findings(seen: Observed) -> list[Finding]:
    return [f for rule, kind in RULES if _applies(seen.spec, kind) for f in rule(seen)]
