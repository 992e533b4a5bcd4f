"""The Kubernetes Job that load-tests a live endpoint with `vllm bench serve`, and what it needs.

The Job runs in the endpoint's namespace, from the endpoint's own worker image (vLLM 0.19.0 is
in both DPD images), on a node of the endpoint's instance type near its pods, where that image
is already on disk. It sends the workload's traffic to the router address in-cluster callers
keep across changes (`routing.in_cluster_url`), so requests take the paths real clients take,
and prints vLLM's result JSON between two marker lines, so that `kubectl logs job/...` gives
it back.

vLLM's random dataset draws prompts from the model's tokenizer, which `vllm bench serve` loads
in the Job (without one it writes no latency figures: serve.py, `if ... tokenizer:`). The Job
reads the tokenizer where the weights are, without a copy: an S3 prefix through the Mountpoint
S3 CSI driver the stack installs (a read-only PersistentVolume of that prefix; Mountpoint
fetches only the files opened, the tokenizer's few MB), an FSx file system through the FSx CSI
driver, or a Hugging Face repository by name, with the endpoint's token when it has one.
"""

from __future__ import annotations

import math
from typing import Any

from components.endpoint.spec import EndpointSpec
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

# The client: one asyncio process and the tokenizer; far from what a model node has spare.
CPU = "4"

MEMORY = "16Gi"


# The label the operator puts on every DPD pod (DESIGN.md, runtime names).
DPD_ROLE_LABEL = "inference.sagemaker.aws.amazon.com/dpd-role"

INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"

# Why each checkov finding that stays is right for this Job; checkov reads these annotations
# (`checkov.io/skipN: CHECK=reason`) and reports the skip with its reason.
CHECKOV_SKIPS = {
    "CKV_K8S_43": "the image is the endpoint's own, by the reference its "
    "InferenceEndpointConfig names, so the node's copy serves the Job",
}

DEFAULT_NAMESPACE_SKIP = (
    "CKV_K8S_21",
    "the endpoint's own namespace, where its pods and its token Secret are",
)


def job_name(spec: EndpointSpec) -> str:
    return f"{spec.name}-bench"


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
    skips = dict(CHECKOV_SKIPS)
    if spec.namespace == "default":
        skips[DEFAULT_NAMESPACE_SKIP[0]] = DEFAULT_NAMESPACE_SKIP[1]
    return {
        f"checkov.io/skip{n}": f"{check}={reason}"
        for n, (check, reason) in enumerate(sorted(skips.items()), start=1)
    }


def _pod_spec(
    spec: EndpointSpec, script: str, weights_mount: dict[str, Any] | None
) -> dict[str, Any]:
    mounts = [{"name": "scratch", "mountPath": "/tmp"}]
    volumes: list[dict[str, Any]] = [{"name": "scratch", "emptyDir": {}}]
    if weights_mount is not None:
        mounts.append(weights_mount)
        volumes.append(
            {
                "name": "weights",
                "persistentVolumeClaim": {
                    "claimName": weights_volume_name(spec),
                    "readOnly": True,
                },
            }
        )
    if (secret := hf_token_secret(spec)) is not None:
        name, key = secret
        folder, file = HF_TOKEN_FILE.rsplit("/", 1)
        mounts.append({"name": "hf-token", "mountPath": folder, "readOnly": True})
        volumes.append(
            {
                "name": "hf-token",
                "secret": {"secretName": name, "items": [{"key": key, "path": file}]},
            }
        )
    resources = {"cpu": CPU, "memory": MEMORY}
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
        # A node of the endpoint's type holds its image; beside its pods, surely.
        "nodeSelector": {INSTANCE_TYPE_LABEL: spec.instance_type},
        "affinity": {
            "podAffinity": {
                "preferredDuringSchedulingIgnoredDuringExecution": [
                    {
                        "weight": 100,
                        "podAffinityTerm": {
                            "labelSelector": {
                                "matchExpressions": [{"key": DPD_ROLE_LABEL, "operator": "Exists"}]
                            },
                            "topologyKey": "kubernetes.io/hostname",
                        },
                    }
                ]
            }
        },
        "containers": [
            {
                "name": "vllm-bench",
                "image": spec.image,
                # Always asks the registry for the tag's digest; the layers come from the node.
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


def _network_policy(spec: EndpointSpec) -> dict[str, Any]:
    """No traffic into the Job's pod; out of it, only to the router's namespace, to DNS, and
    for a Hugging Face tokenizer to HTTPS. It binds where the cluster enforces NetworkPolicies
    (the VPC CNI's network policy agent, when enabled) and is inert elsewhere."""
    by_name = "kubernetes.io/metadata.name"
    egress: list[dict[str, Any]] = [
        {"to": [{"namespaceSelector": {"matchLabels": {by_name: OPERATOR_NAMESPACE}}}]},
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
        "metadata": {"name": job_name(spec), "namespace": spec.namespace, "labels": labels(spec)},
        "spec": {
            "podSelector": {"matchLabels": labels(spec)},
            "policyTypes": ["Ingress", "Egress"],
            "egress": egress,
        },
    }


def bench_manifests(
    stack: str,
    spec: EndpointSpec,
    index: int,
    runs: list[BenchRun],
    *,
    model_bucket: str,
    region: str,
) -> list[dict[str, Any]]:
    """The objects to apply, in order: the weights' PersistentVolume and claim (none for
    Hugging Face), the Job's NetworkPolicy, then the Job."""
    weights, tokenizer, mount = weights_objects(spec, index, model_bucket, region)
    script = bench_script(stack, spec, tokenizer, runs)
    deadline = DEADLINE_FACTOR * sum(run.seconds for run in runs) + START_SECONDS
    deadline += READY_SECONDS * len(runs)
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": job_name(spec),
            "namespace": spec.namespace,
            "labels": labels(spec),
            "annotations": _annotations(spec),
        },
        "spec": {
            # A failed benchmark is read, not run again: a retry would add its load to what
            # the endpoint still serves from the first.
            "backoffLimit": 0,
            "activeDeadlineSeconds": math.ceil(deadline),
            "ttlSecondsAfterFinished": KEEP_SECONDS,
            "template": {
                "metadata": {"labels": labels(spec)},
                "spec": _pod_spec(spec, script, mount),
            },
        },
    }
    return [*weights, _network_policy(spec), job]
