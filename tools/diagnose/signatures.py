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

from __future__ import annotations

import math
import statistics
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from components.core.units import GIB, format_bytes
from components.endpoint.environment import PINNED_ENV
from components.endpoint.spec import DLC_IMAGE, LMCACHE_IMAGE, DpdEndpointSpec
from components.sizing.kv import EndpointSizing, transfers_in_flight
from infra.stack_settings import StackSettings
from tools.diagnose.cluster_view import EndpointStatus, EventView, PodView
from tools.diagnose.log_lines import (
    ALLOCATION,
    engine_deaths,
    lines_with,
    median_throughput,
    pd_roles,
    retrievals,
    routings,
)

TROUBLESHOOTING = "AWS, Disaggregated Prefill and Decode (DPD) deployment issues"
GUIDE = "AWS, Disaggregated Prefill and Decode for HyperPod inference"
# AWS's figures: ContainerCreating for more than 10 minutes; 70B loads in 5-10 minutes.
STUCK_SECONDS = 600
# Below this KV throughput EFA is not in use (AWS's troubleshooting page).
EFA_GBPS = 1.0
# Router lines before shares are judged.
FEW_REQUESTS = 10
PULL_FAILURES = ("Failed to pull image", "ErrImagePull", "ImagePullBackOff")
MOUNT_FAILURES = ("MountVolume.SetUp failed", "FailedMount", "FailedAttachVolume")
EXPECTED_ROLES = {"prefill": "sender", "decode": "receiver"}


@dataclass(frozen=True)
class Finding:
    signature: str
    where: str
    cause: str
    seen: str
    key: str
    value: str
    source: str


@dataclass(frozen=True)
class Observed:
    """What the rules read: the stack's view of the endpoint, and the cluster's."""

    stack: StackSettings
    index: int
    sizing: EndpointSizing
    status: EndpointStatus
    pods: list[PodView]
    routers: list[PodView]
    events: list[EventView]
    # Log file name (`<pod>.<container>[.previous].log`) -> text.
    logs: dict[str, str]
    operator_image: str | None
    captured_at: datetime

    @property
    def spec(self) -> DpdEndpointSpec:
        return self.stack.endpoints[self.index]

    def key(self, field: str) -> str:
        return f"endpoints[{self.index}].{field}"

    def log(self, pod: PodView, previous: bool = False) -> str:
        return self.logs.get(f"{pod.name}.{pod.main}{'.previous' * previous}.log", "")

    def role(self, role: str) -> list[PodView]:
        return [pod for pod in self.pods if pod.role == role]

    def worker_ready(self, pod: PodView) -> bool:
        main = pod.container(pod.main)
        return main is not None and main.ready


def _seconds_since(when: datetime | None, now: datetime) -> float:
    return 0.0 if when is None else (now - when).total_seconds()


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} min"


def _count(lines: list, what: str = "such lines") -> str:
    return f" ({len(lines)} {what})" if len(lines) > 1 else ""


def _operator_advice(seen: Observed) -> tuple[str, str]:
    operator = seen.stack.operator
    if operator.installed is not None:
        key = "operator.installed.addonVersion"
        pinned = operator.installed.addon_version or operator.installed.operator_version
    else:
        key, pinned = "operator.addonVersion", operator.addon_version
    running = f"; the cluster's operator runs {seen.operator_image}" if seen.operator_image else ""
    return key, (
        f"v1.3.0-eksbuild.1 or later (operator 3.2, the first with DPD); the stack says "
        f"{pinned}{running}"
    )


def operator_failure(seen: Observed) -> list[Finding]:
    failed = [c for c in seen.status.conditions if c[1] == "False" and c[3]]
    if "fail" not in seen.status.state.lower() and not failed:
        return []
    message = failed[0][3] if failed else seen.status.state
    return [
        Finding(
            "endpoint-failed",
            f"InferenceEndpointConfig {seen.spec.name}",
            f"the operator reports the endpoint {seen.status.state or 'not ready'}",
            message,
            "-",
            "what the operator's message says; `kubectl describe inferenceendpointconfig "
            f"{seen.spec.name} -n {seen.spec.namespace}` shows its events",
            "the InferenceEndpointConfig's status (CRD v1: state, conditions)",
        )
    ]


def no_pods(seen: Observed) -> list[Finding]:
    missing = [role for role in ("prefill", "decode") if not seen.role(role)]
    if not missing:
        return []
    key, value = _operator_advice(seen)
    if not seen.status.has_pd_spec:
        key, value = seen.key("prefill"), "the cluster's object has no pdSpec: run pulumi up"
    return [
        Finding(
            "no-dpd-pods",
            f"namespace {seen.spec.namespace}",
            f"no {' and no '.join(missing)} pod of {seen.spec.name}: the operator did not "
            "create the DPD deployments",
            f"state {seen.status.state or '(none)'}; "
            + "; ".join(c[3] for c in seen.status.conditions if c[3])[:300],
            key,
            value,
            GUIDE + " (pods prefill-<name>-*, decode-<name>-*)",
        )
    ]


def _event_lines(seen: Observed, pod: PodView, needles: tuple[str, ...]) -> list[str]:
    return [
        f"{event.reason}: {event.message}"[:300]
        for event in seen.events
        if event.object_name == pod.name
        and any(n in event.message or n == event.reason for n in needles)
    ]


def image_or_mount(seen: Observed) -> list[Finding]:
    found = []
    for pod in seen.pods:
        waiting = [c for c in pod.containers if c.waiting]
        pulls = _event_lines(seen, pod, PULL_FAILURES) + [
            f"{c.name}: {c.waiting}: {c.waiting_message}"[:300]
            for c in waiting
            if c.waiting in ("ErrImagePull", "ImagePullBackOff")
        ]
        mounts = _event_lines(seen, pod, MOUNT_FAILURES)
        creating = [c for c in waiting if c.waiting == "ContainerCreating"]
        stuck = _seconds_since(pod.created, seen.captured_at) > STUCK_SECONDS
        if pulls:
            found.append(
                Finding(
                    "image-pull",
                    pod.name,
                    "the node cannot pull the worker image",
                    pulls[0] + _count(pulls, "such events"),
                    seen.key("image"),
                    f"an image the nodes can pull that has vLLM, LMCache and NIXL: {DLC_IMAGE} "
                    f"or {LMCACHE_IMAGE} (now {seen.spec.image})",
                    TROUBLESHOOTING,
                )
            )
        elif mounts:
            source = seen.spec.model_source
            key = seen.key("modelSource.s3.prefix" if source.s3 else "modelSource")
            found.append(
                Finding(
                    "weights-mount",
                    pod.name,
                    "the weights' volume does not mount: the bucket or prefix, or the S3 CSI "
                    "driver's role, does not let the node read them",
                    mounts[0] + _count(mounts, "such events"),
                    key,
                    "the prefix the weights were copied to (aws s3 ls s3://<model bucket>/"
                    f"{source.s3.prefix if source.s3 else '<prefix>'}/)",
                    TROUBLESHOOTING,
                )
            )
        elif creating and stuck:
            found.append(
                Finding(
                    "container-creating",
                    pod.name,
                    f"{pod.ready_text} Ready and ContainerCreating for "
                    f"{_minutes(_seconds_since(pod.created, seen.captured_at))}, more than "
                    "the 10 minutes an image pull and a mount take",
                    f"{creating[0].name}: ContainerCreating {creating[0].waiting_message}".strip(),
                    seen.key("image"),
                    f"check `kubectl describe pod {pod.name} -n {pod.namespace}` for the pull "
                    f"or mount; the image is {seen.spec.image}",
                    TROUBLESHOOTING,
                )
            )
    return found


def still_loading(seen: Observed) -> list[Finding]:
    found = []
    for pod in seen.pods:
        main = pod.container(pod.main)
        if main is None or main.ready or main.started_at is None or main.restarts:
            continue
        waited = _seconds_since(main.started_at, seen.captured_at)
        if waited <= STUCK_SECONDS:
            continue
        log = seen.log(pod)
        loading = [line for line in log.splitlines() if "load" in line.lower()][-1:] or [
            "(no line of the worker's log mentions loading)"
        ]
        found.append(
            Finding(
                "weights-loading",
                pod.name,
                f"{pod.ready_text} Ready: the vLLM worker has not served for "
                f"{_minutes(waited)}; Llama 3.3 70B loads in 5 to 10 minutes from S3",
                loading[0].strip()[:300],
                seen.key("modelSource"),
                "weights the worker reads faster (FSx for Lustre), or wait and read "
                f"`kubectl logs {pod.name} -n {pod.namespace} -c {pod.main}`",
                TROUBLESHOOTING,
            )
        )
    return found


def engine_death(seen: Observed) -> list[Finding]:
    found = []
    for pod in seen.pods:
        deaths = engine_deaths(seen.log(pod, previous=True)) + engine_deaths(seen.log(pod))
        if deaths:
            key, value = _operator_advice(seen)
            found.append(
                Finding(
                    "engine-dead",
                    pod.name,
                    "the vLLM engine died; on DPD pods AWS traces EngineDeadError and "
                    "TimeoutError to an inference operator older than 3.2",
                    deaths[0] + _count(deaths),
                    key,
                    value,
                    TROUBLESHOOTING,
                )
            )
    return found


def wrong_roles(seen: Observed) -> list[Finding]:
    """Each ready worker prints its LMCache role once at start: prefill `sender`, decode
    `receiver`. The same on both, or none, and the operator did not wire DPD."""
    ready = [pod for pod in seen.pods if seen.worker_ready(pod)]
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
    key, value = _operator_advice(seen)
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


def _pinned_env_problems(seen: Observed) -> list[str]:
    problems = []
    for pod in seen.pods:
        main = pod.container(pod.main)
        value = main.environment.get("PYTHONHASHSEED") if main else None
        if main is not None and value != PINNED_ENV["PYTHONHASHSEED"]:
            problems.append(f"{pod.name} runs PYTHONHASHSEED={value if value else '(unset)'}")
    return problems


def _images(seen: Observed) -> dict[str, set[str]]:
    images: dict[str, set[str]] = {}
    for pod in seen.pods:
        main = pod.container(pod.main)
        if main is not None:
            images.setdefault(pod.role, set()).add(main.image)
    return images


def kv_not_retrieved(seen: Observed) -> list[Finding]:
    found = []
    for pod in seen.role("decode"):
        zero = [r for r in retrievals(seen.log(pod)) if r.retrieved == 0 and r.required > 0]
        if not zero:
            continue
        checks = _pinned_env_problems(seen)
        images = _images(seen)
        if len(images.get("prefill", set()) | images.get("decode", set())) > 1:
            checks.append(
                f"prefill runs {', '.join(sorted(images.get('prefill', [])))}, decode "
                f"{', '.join(sorted(images.get('decode', [])))}"
            )
        found.append(
            Finding(
                "kv-not-retrieved",
                pod.name,
                "the KV cache did not cross from prefill to decode, so the decoder recomputed "
                'the prompt: PYTHONHASHSEED must be "0" on both roles (LMCache keys its cache '
                "on Python's hash()), both roles must run the same image, and the roles must be "
                "sender and receiver"
                + (f"; in the cluster: {'; '.join(checks)}" if checks else ""),
                zero[0].line + _count(zero),
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
                    waits[0] + _count(waits),
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


RULES: tuple[Callable[[Observed], list[Finding]], ...] = (
    operator_failure,
    no_pods,
    image_or_mount,
    still_loading,
    engine_death,
    wrong_roles,
    kv_not_retrieved,
    buffer_full,
    slow_transfers,
    routing_shares,
)


def findings(seen: Observed) -> list[Finding]:
    return [found for rule in RULES for found in rule(seen)]
