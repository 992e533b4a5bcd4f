"""Signatures in the pods and their events: the endpoint failed, no DPD pods, an image or a
mount that fails, weights still loading, an engine that dies (sources in signatures.py)."""

import shlex

from components.endpoint.image import DLC_IMAGE, LMCACHE_IMAGE
from tools.diagnose.cluster_view import PodView
from tools.diagnose.log_lines import ENGINE_DEATH, lines_with
from tools.diagnose.observed import (
    GUIDE,
    TROUBLESHOOTING,
    Finding,
    Observed,
    command,
    count,
    minutes,
    operator_advice,
    seconds_since,
)

# AWS's figures: ContainerCreating for more than 10 minutes; 70B loads in 5-10 minutes.
STUCK_SECONDS = 600

PULL_FAILURES = ("Failed to pull image", "ErrImagePull", "ImagePullBackOff")

MOUNT_FAILURES = ("MountVolume.SetUp failed", "FailedMount", "FailedAttachVolume")


def operator_failure(seen: Observed) -> list[Finding]:
    failed = [c for c in seen.status.conditions if c[1] == "False" and c[3]]
    if "fail" not in seen.status.state.lower() and not failed:
        return []
    message = failed[0][3] if failed else seen.status.state
    return [
        Finding(
            "endpoint-failed",
            f"InferenceEndpointConfig {seen.object_name}",
            f"the operator reports the endpoint {seen.status.state or 'not ready'}",
            message,
            "-",
            "what the operator's message says; "
            + command(
                "kubectl",
                "describe",
                "inferenceendpointconfig",
                seen.object_name,
                "-n",
                seen.spec.namespace,
            )
            + " shows its events",
            "the InferenceEndpointConfig's status (CRD v1: state, conditions)",
        )
    ]


def no_pods(seen: Observed) -> list[Finding]:
    missing = [role for role in ("prefill", "decode") if not seen.role(role)]
    if not missing:
        return []
    key, value = operator_advice(seen)
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
        stuck = seconds_since(pod.created, seen.captured_at) > STUCK_SECONDS
        if pulls:
            found.append(
                Finding(
                    "image-pull",
                    pod.name,
                    "the node cannot pull the worker image",
                    pulls[0] + count(pulls, "such events"),
                    seen.key("image"),
                    f"an image the nodes can pull that has vLLM, LMCache and NIXL: {DLC_IMAGE} "
                    f"or {LMCACHE_IMAGE} (now {seen.spec.image})",
                    TROUBLESHOOTING,
                )
            )
        elif mounts:
            source = seen.spec.model_source
            folder = source.s3.folder if source.s3 else ""
            key = seen.key("modelSource.s3.prefix" if source.s3 else "modelSource")
            found.append(
                Finding(
                    "weights-mount",
                    pod.name,
                    "the weights' volume does not mount: the bucket or prefix, or the S3 CSI "
                    "driver's role, does not let the node read them",
                    mounts[0] + count(mounts, "such events"),
                    key,
                    'the prefix the weights were copied to (`aws s3 ls "s3://$BUCKET/"'
                    f"{shlex.quote(folder)}`, BUCKET the model bucket, as README's step 2 sets it)",
                    TROUBLESHOOTING,
                )
            )
        elif creating and stuck:
            found.append(
                Finding(
                    "container-creating",
                    pod.name,
                    f"{pod.ready_text} Ready and ContainerCreating for "
                    f"{minutes(seconds_since(pod.created, seen.captured_at))}, more than "
                    "the 10 minutes an image pull and a mount take",
                    f"{creating[0].name}: ContainerCreating {creating[0].waiting_message}".strip(),
                    seen.key("image"),
                    "check "
                    + command("kubectl", "describe", "pod", pod.name, "-n", pod.namespace)
                    + f" for the pull or mount; the image is {seen.spec.image}",
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
        waited = seconds_since(main.started_at, seen.captured_at)
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
                f"{minutes(waited)}; Llama 3.3 70B loads in 5 to 10 minutes from S3",
                loading[0].strip()[:300],
                seen.key("modelSource"),
                "weights the worker reads faster (FSx for Lustre), or wait and read "
                + command("kubectl", "logs", pod.name, "-n", pod.namespace, "-c", pod.main),
                TROUBLESHOOTING,
            )
        )
    return found


def engine_death(seen: Observed) -> list[Finding]:
    found = []
    for pod in seen.pods:
        deaths = lines_with(seen.log(pod, previous=True) + "\n" + seen.log(pod), ENGINE_DEATH)
        if deaths:
            key, value = operator_advice(seen)
            found.append(
                Finding(
                    "engine-dead",
                    pod.name,
                    "the vLLM engine died; on DPD pods AWS traces EngineDeadError and "
                    "TimeoutError to an inference operator older than 3.2",
                    deaths[0] + count(deaths),
                    key,
                    value,
                    TROUBLESHOOTING,
                )
            )
    return found
