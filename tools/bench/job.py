"""The Kubernetes Job that load-tests a live endpoint with `vllm bench serve`.

It runs in the endpoint's namespace from a pinned client image of its own: vLLM's benchmark
speaks the OpenAI API every engine the stack runs serves (vllm_bench.py). It sends the
workload's traffic to the address in-cluster callers keep (`routing.in_cluster_url`), so
requests take the paths real clients take, or, to a colocated endpoint without a router,
through a Service of its own selecting the pods by the label AWS's CLI finds them by (`app`:
the object's name).
"""

import math
from dataclasses import dataclass
from typing import Any

from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.core.kubernetes_names import quantity_value
from components.core.units import GIB
from components.endpoint.image import DLC_IMAGE
from components.endpoint.routing import in_cluster_url
from components.endpoint.spec import EndpointSpec
from components.endpoint.worker import WorkerResources
from components.operator.iam import OPERATOR_NAMESPACE
from tools.bench.endpoint import labels
from tools.bench.vllm_bench import READY_SECONDS, BenchRun, bench_script
from tools.bench.weights import (
    HF_TOKEN_FILE,
    USER_ID,
    hf_token_secret,
    weights_objects,
    weights_volume_name,
)

# A run three times as long as the model predicts is stuck; Kubernetes then ends the Job. Its
# start (scheduling, importing vLLM, loading the tokenizer) gets 10 minutes on top.
DEADLINE_FACTOR = 3
START_SECONDS = 600
# The logs and the finished Job stay a day, then Kubernetes deletes the Job and its pod.
KEEP_SECONDS = 86_400
# The client: one asyncio process and the tokenizer. It asks for at most this beside the
# endpoint's pods, and at least the floor; with less left there, it runs on another node.
CPU, MEMORY_GIB = 4, 16
MIN_CPU, MIN_MEMORY_GIB = 1, 4
# vLLM 0.19.0's benchmark, the version the script's flags are written for (AWS's DPD guide:
# this image carries vLLM 0.19.0), whatever the endpoint's engine and image.
CLIENT_IMAGE = DLC_IMAGE
# What a node keeps from its pods: the kubelet's reserve by the EKS AMI's rule (amazon-eks-ami
# and Bottlerocket, kubeReserved: 6% of the first core, 1% of the second, 0.5% of the next two
# and 0.25% of the rest; 11 MiB per pod, at most 110, plus 255 MiB) and its 100 MiB eviction
# threshold; and an allowance for the daemon sets every GPU node runs (device plugins, the
# VPC CNI, kube-proxy, the CSI node drivers, HyperPod's health agent), whose requests HyperPod
# does not publish.
DAEMON_CPU, DAEMON_MEMORY_GIB = 1, 2
MAX_PODS = 110


def node_reserve(vcpus: int) -> tuple[float, float]:
    """CPUs and GiB a node keeps for the kubelet, the system and its daemon sets."""
    shares = [0.06, 0.01, 0.005, 0.005] + [0.0025] * max(vcpus - 4, 0)
    return sum(shares[:vcpus]) + DAEMON_CPU, (11 * MAX_PODS + 355) / 1024 + DAEMON_MEMORY_GIB


@dataclass(frozen=True)
class Placement:
    cpu: int
    memory_gib: int
    beside: bool
    why: str


def job_placement(spec: EndpointSpec) -> Placement:
    """Beside the endpoint's pods if a node of their type has room after them; else anywhere."""
    node = GPU_INSTANCE_TYPES[spec.instance_type]
    role, _ = max(spec.roles().values(), key=lambda r: r[0].gpus)
    pods = min(node.gpus // role.gpus, role.max_replicas)
    # DPD pods request only their GPUs (the operator ignores worker.resources for them).
    asks = spec.worker_resources if spec.aggregated else WorkerResources()
    cpu, memory = (
        float(quantity_value(asks.requests.get(k) or asks.limited.get(k) or "0"))
        for k in ("cpu", "memory")
    )
    reserved_cpu, reserved_gib = node_reserve(node.vcpu_count)
    free_cpu = node.vcpu_count - reserved_cpu - pods * cpu
    free_gib = node.memory_gib - reserved_gib - pods * memory / GIB
    left = (
        f"a {node.name} node has {free_cpu:.1f} vCPUs and {free_gib:.0f} GiB left after "
        f"{pods} of the endpoint's pods and its reserve"
    )
    if free_cpu < MIN_CPU or free_gib < MIN_MEMORY_GIB:
        return Placement(CPU, MEMORY_GIB, False, f"on any node with room: {left}")
    cpus, gib = min(CPU, math.floor(free_cpu)), min(MEMORY_GIB, math.floor(free_gib))
    return Placement(cpus, gib, True, f"on a node of the endpoint's type: {left}")


def job_name(spec: EndpointSpec) -> str:
    return f"{spec.name}-bench"


def _metadata(spec: EndpointSpec) -> dict[str, Any]:
    return {"name": job_name(spec), "namespace": spec.namespace, "labels": labels(spec)}


def _environment(spec: EndpointSpec) -> list[dict[str, str]]:
    env = [
        {"name": "HOME", "value": "/tmp"},
        {"name": "HF_HOME", "value": "/tmp/hf_home"},
        # vLLM's usage report goes nowhere from a benchmark client.
        {"name": "VLLM_NO_USAGE_STATS", "value": "1"},
        {"name": "DO_NOT_TRACK", "value": "1"},
        # The images set NVIDIA_VISIBLE_DEVICES=all, and on a GPU node the NVIDIA runtime
        # would then hand this pod every GPU, the endpoint's included; `void` makes it behave
        # as runc (NVIDIA Container Toolkit, "Specialized configurations": GPU enumeration).
        {"name": "NVIDIA_VISIBLE_DEVICES", "value": "void"},
    ]
    if hf_token_secret(spec) is not None:
        # huggingface_hub reads the token from this file (its HF_TOKEN_PATH variable), so the
        # token is never an environment variable.
        env.append({"name": "HF_TOKEN_PATH", "value": HF_TOKEN_FILE})
    return env


def _annotations(spec: EndpointSpec) -> dict[str, str]:
    # Why each checkov finding that stays is right for this Job; checkov reads these annotations
    # (`checkov.io/skipN: CHECK=reason`) and reports the skip with its reason.
    skips = {
        "CKV_K8S_43": "the client image is pinned by the tag AWS publishes it under "
        "(public.ecr.aws/deep-learning-containers/vllm), the endpoint's DPD image",
    }
    if spec.namespace == "default":
        skips["CKV_K8S_21"] = (
            "the endpoint's own namespace, where its pods and its token Secret are"
        )
    return {
        f"checkov.io/skip{n}": f"{check}={reason}"
        for n, (check, reason) in enumerate(sorted(skips.items()), start=1)
    }


def _pod_spec(
    spec: EndpointSpec,
    script: str,
    weights_mount: dict[str, Any] | None,
    placement: Placement,
) -> dict[str, Any]:
    mounts = [{"name": "scratch", "mountPath": "/tmp"}]
    volumes: list[dict[str, Any]] = [{"name": "scratch", "emptyDir": {}}]
    if weights_mount is not None:
        mounts.append(weights_mount)
        claim = {"claimName": weights_volume_name(spec), "readOnly": True}
        volumes.append({"name": "weights", "persistentVolumeClaim": claim})
    if (secret := hf_token_secret(spec)) is not None:
        name, key = secret
        folder, file = HF_TOKEN_FILE.rsplit("/", 1)
        mounts.append({"name": "hf-token", "mountPath": folder, "readOnly": True})
        items = [{"key": key, "path": file}]
        volumes.append({"name": "hf-token", "secret": {"secretName": name, "items": items}})
    resources = {"cpu": str(placement.cpu), "memory": f"{placement.memory_gib}Gi"}
    return {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        "securityContext": {
            "runAsNonRoot": True,
            "runAsUser": USER_ID,
            "runAsGroup": USER_ID,
            "fsGroup": USER_ID,
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        # A node of the endpoint's type holds what the Job asks, even beside its pods.
        **(
            {"nodeSelector": {"node.kubernetes.io/instance-type": spec.instance_type}}
            if placement.beside
            else {}
        ),
        "containers": [
            {
                "name": "vllm-bench",
                "image": CLIENT_IMAGE,
                # Always asks the registry for the tag's digest; the layers may be on the node.
                "imagePullPolicy": "Always",
                "command": ["/bin/sh", "-c", script],
                "env": _environment(spec),
                "resources": {"requests": dict(resources), "limits": dict(resources)},
                "securityContext": {
                    "allowPrivilegeEscalation": False,
                    "readOnlyRootFilesystem": True,
                    "runAsNonRoot": True,
                    "capabilities": {"drop": ["ALL"]},
                },
                "volumeMounts": mounts,
            }
        ],
        "volumes": volumes,
    }


def _network_policy(spec: EndpointSpec, object_name: str) -> dict[str, Any]:
    """No traffic into the Job's pod; out of it, only to the router's namespace (or, without a
    router, the endpoint's pods), to DNS, and for a Hugging Face tokenizer to HTTPS. It binds
    where the cluster enforces NetworkPolicies (the VPC CNI's network policy agent, when
    enabled) and is inert elsewhere."""
    by_name = "kubernetes.io/metadata.name"
    endpoint = (
        {"namespaceSelector": {"matchLabels": {by_name: OPERATOR_NAMESPACE}}}
        if spec.intelligent_routing
        else {"podSelector": {"matchLabels": {"app": object_name}}}
    )
    egress: list[dict[str, Any]] = [
        {"to": [endpoint]},
        {
            "to": [{"namespaceSelector": {"matchLabels": {by_name: "kube-system"}}}],
            "ports": [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}],
        },
    ]
    if spec.model_source.hugging_face is not None:
        egress.append({"ports": [{"protocol": "TCP", "port": 443}]})
    return {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": _metadata(spec),
        "spec": {
            "podSelector": {"matchLabels": labels(spec)},
            "policyTypes": ["Ingress", "Egress"],
            "egress": egress,
        },
    }


def endpoint_address(spec: EndpointSpec) -> str:
    """The router, as in-cluster callers reach it, or the Service of a colocated endpoint's pods."""
    if spec.intelligent_routing:
        return in_cluster_url(spec)
    return f"http://{job_name(spec)}.{spec.namespace}.svc.cluster.local:{spec.container_port}"


def _pods_service(spec: EndpointSpec, object_name: str) -> dict[str, Any]:
    port = spec.container_port
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _metadata(spec),
        "spec": {"selector": {"app": object_name}, "ports": [{"port": port, "targetPort": port}]},
    }


def bench_manifests(
    stack: str,
    spec: EndpointSpec,
    index: int,
    runs: list[BenchRun],
    *,
    model_bucket: str,
    region: str,
    object_name: str,
) -> list[dict[str, Any]]:
    """The objects to apply, in order: the weights' PersistentVolume and claim (none for
    Hugging Face), a Service of a colocated endpoint's pods (none behind a router), the Job's
    NetworkPolicy, then the Job."""
    weights, tokenizer, mount = weights_objects(spec, index, model_bucket, region)
    script = bench_script(stack, spec, tokenizer, runs, endpoint_address(spec))
    deadline = DEADLINE_FACTOR * sum(run.seconds for run in runs) + START_SECONDS
    deadline += READY_SECONDS * len(runs)
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {**_metadata(spec), "annotations": _annotations(spec)},
        "spec": {
            # A failed benchmark is read, not run again: a retry would add its load to what
            # the endpoint still serves from the first.
            "backoffLimit": 0,
            "activeDeadlineSeconds": math.ceil(deadline),
            "ttlSecondsAfterFinished": KEEP_SECONDS,
            "template": {
                "metadata": {"labels": labels(spec)},
                "spec": _pod_spec(spec, script, mount, job_placement(spec)),
            },
        },
    }
    # A Service of a colocated endpoint's pods, when no router stands in front of them.
    service = [] if spec.intelligent_routing else [_pods_service(spec, object_name)]
    return [*weights, *service, _network_policy(spec, object_name), job]
