"""Signatures in the logs of a running DPD pair: the LMCache roles, KV not retrieved, a full PD
buffer, transfers too slow for EFA, and the router's shares against routingThreshold (sources
in signatures.py)."""

import math
import statistics

from components.core.units import GIB, format_bytes
from components.endpoint.environment import PINNED_ENV
from components.sizing.kv import transfers_in_flight
from tools.diagnose.log_lines import (
    ALLOCATION,
    lines_with,
    median_throughput,
    pd_roles,
    retrievals,
    routings,
)
from tools.diagnose.observed import (
    GUIDE,
    TROUBLESHOOTING,
    Finding,
    Observed,
    count,
    operator_advice,
)

# Below this KV throughput EFA is not in use (AWS's troubleshooting page).
EFA_GBPS = 1.0

# Router lines before shares are judged.
FEW_REQUESTS = 10

EXPECTED_ROLES = {"prefill": "sender", "decode": "receiver"}


def wrong_roles(seen: Observed) -> list[Finding]:
    """A ready prefill worker prints 'pd_role': 'sender', a decode one 'receiver'; else no DPD."""
    ready = [pod for pod in seen.pods if (main := pod.container(pod.main)) and main.ready]
    if not ready:
        return []
    wrong = []
    for pod in ready:
        roles = pd_roles(seen.log(pod))
        if roles != {EXPECTED_ROLES[pod.role]}:
            printed = ", ".join(f"'pd_role': '{r}'" for r in sorted(roles)) or "no pd_role line"
            wrong.append(f"{pod.name} ({pod.role}): {printed}")
    if not wrong:
        return []
    key, value = operator_advice(seen)
    return [
        Finding(
            "pd-role",
            ", ".join(pod.name for pod in ready),
            "the prefiller must report 'pd_role': 'sender' and the decoder 'receiver'; "
            "otherwise the operator did not wire DPD",
            "; ".join(wrong),
            key,
            value,
            GUIDE + ", Verify DPD roles",
        )
    ]


def _pair_problems(seen: Observed) -> list[str]:
    """What in the cluster keeps the KV cache from crossing: a hash seed, two images."""
    problems, images = [], {"prefill": set(), "decode": set()}
    for pod in seen.pods:
        main = pod.container(pod.main)
        if main is None:
            continue
        images[pod.role].add(main.image)
        value = main.environment.get("PYTHONHASHSEED")
        if value != PINNED_ENV["PYTHONHASHSEED"]:
            problems.append(f"{pod.name} runs PYTHONHASHSEED={value if value else '(unset)'}")
    if len(images["prefill"] | images["decode"]) > 1:
        prefill, decode = (", ".join(sorted(images[role])) for role in ("prefill", "decode"))
        problems.append(f"prefill runs {prefill}, decode {decode}")
    return problems


def kv_not_retrieved(seen: Observed) -> list[Finding]:
    found = []
    for pod in seen.role("decode"):
        zero = [r for r in retrievals(seen.log(pod)) if r.retrieved == 0 and r.required > 0]
        if not zero:
            continue
        checks = _pair_problems(seen)
        found.append(
            Finding(
                "kv-not-retrieved",
                pod.name,
                "the KV cache did not cross from prefill to decode, so the decoder recomputed "
                'the prompt: PYTHONHASHSEED must be "0" on both roles (LMCache keys its cache '
                "on Python's hash()), both roles must run the same image, and the roles must be "
                "sender and receiver"
                + (f"; in the cluster: {'; '.join(checks)}" if checks else ""),
                zero[0].line + count(zero),
                seen.key("environmentVariables.PYTHONHASHSEED"),
                '"0", which the stack writes on both roles (components/endpoint/environment.py):'
                " if a pod shows another value, the cluster runs an older manifest, so run "
                f"pulumi up; and one image for both ({seen.key('image')})",
                TROUBLESHOOTING,
            )
        )
    return found


def _larger_buffer(seen: Observed) -> str:
    """The next buffer to try, with what sizing says it holds."""
    sizing = seen.sizing
    if sizing is None:
        more = seen.spec.decode.replicas + 1  # no architecture says what a transfer takes
        return (
            f"{format_bytes(2 * seen.spec.pd_buffer_size)}, or {seen.key('decode.replicas')} {more}"
        )
    typical = sizing.typical_transfer
    now = sizing.pd_buffer_bytes
    room = sizing.hbm.pd_buffer_room_bytes
    doubled = min(2 * now, math.floor(room / GIB) * GIB)
    holds = transfers_in_flight(now, typical.bytes_per_rank)
    if doubled <= now:
        return (
            f"no larger buffer fits beside --gpu-memory-utilization "
            f"{sizing.hbm.gpu_memory_utilization} ({format_bytes(now)} holds {holds} transfers "
            f"of {typical.tokens:,} tokens); lower {seen.key('gpuMemoryUtilization')} first, "
            f"or raise {seen.key('decode.replicas')} to {seen.spec.decode.replicas + 1}"
        )
    more = transfers_in_flight(int(doubled), typical.bytes_per_rank)
    return (
        f"{format_bytes(doubled)} (now {format_bytes(now)}: {holds} transfers of "
        f"{typical.tokens:,} tokens in flight; {format_bytes(doubled)} holds {more}, and the "
        f"decoder has room for {format_bytes(room)}), or {seen.key('decode.replicas')} "
        f"{seen.spec.decode.replicas + 1}"
    )


def buffer_full(seen: Observed) -> list[Finding]:
    found = []
    for pod in seen.role("decode"):
        waits = lines_with(seen.log(pod), ALLOCATION)
        if waits:
            found.append(
                Finding(
                    "pd-buffer-full",
                    pod.name,
                    "the decoder's PD buffer (PD_BUFFER_SIZE) is full: incoming KV waits for "
                    "room and clients see latency spikes",
                    waits[0] + count(waits),
                    seen.key("pdBufferSize"),
                    _larger_buffer(seen),
                    TROUBLESHOOTING,
                )
            )
    return found


def slow_transfers(seen: Observed) -> list[Finding]:
    found = []
    for pod in seen.role("decode"):
        moved = [r for r in retrievals(seen.log(pod)) if r.retrieved > 0]
        median = median_throughput(moved)
        if median is None or median >= EFA_GBPS:
            continue
        efa = {
            pod.name: c.efa_devices
            for pod in seen.pods
            for c in pod.containers
            if c.name == pod.main
        }
        devices = ", ".join(f"{name} requests {n} vpc.amazonaws.com/efa" for name, n in efa.items())
        existing = seen.stack.network.existing if seen.stack.network else None
        if existing and existing.security_group_id:
            key = "network.existing.securityGroupId"
            value = (
                f"a group allowing all traffic from and to itself, both ways (now "
                f"{existing.security_group_id})"
            )
        else:
            key = "-"
            value = (
                "the stack's EFA security group allows all traffic from and to itself; check "
                "that the nodes offer vpc.amazonaws.com/efa (`kubectl describe node`) and the "
                "pods get EFA devices"
            )
        found.append(
            Finding(
                "kv-over-tcp",
                pod.name,
                f"KV moves at {median:.3g} GB/s (median of {len(moved)} transfers), under "
                f"{EFA_GBPS:g} GB/s: EFA is not in use and the transfer falls back to TCP "
                f"({devices})",
                moved[0].line,
                key,
                value,
                TROUBLESHOOTING,
            )
        )
    return found


def routing_shares(seen: Observed) -> list[Finding]:
    decisions = [r for pod in seen.routers for r in routings(seen.log(pod))]
    if len(decisions) < FEW_REQUESTS:
        return []
    spec = seen.spec
    thresholds = {r.threshold for r in decisions}
    if thresholds != {spec.routing_threshold}:
        return [
            Finding(
                "routing-threshold-drift",
                seen.routers[0].name,
                f"the router routes at {', '.join(map(str, sorted(thresholds)))} tokens, and "
                f"the stack says {spec.routing_threshold}: the cluster runs another manifest",
                decisions[-1].line,
                seen.key("routingThreshold"),
                f"{spec.routing_threshold}, applied with pulumi up",
                GUIDE,
            )
        ]
    typical = spec.workload.typical_input_tokens if spec.workload else None
    if typical is None:
        return []
    share = sum(r.disaggregate for r in decisions) / len(decisions)
    median = round(statistics.median(r.estimated_tokens for r in decisions))
    expected = typical >= spec.routing_threshold
    if expected == (share >= 0.5):
        return []
    measured = (
        f"{share:.0%} of {len(decisions)} requests took the disaggregated path; their "
        f"estimated prompts have a median of {median:,} tokens, against routingThreshold "
        f"{spec.routing_threshold:,} and workload.typicalInputTokens {typical:,}"
    )
    return [
        Finding(
            "routing-share",
            seen.routers[0].name,
            measured + ": the prompts are not the workload's",
            decisions[-1].line,
            seen.key("workload.typicalInputTokens"),
            f"{median:,}, the prompts the router sees (the planner and sizing then hold them), "
            f"or {seen.key('routingThreshold')} at most {median:,} if they should take DPD",
            GUIDE,
        )
    ]
