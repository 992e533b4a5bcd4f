"""The Kubernetes Job that load-tests a live endpoint with `vllm bench serve`, and what it needs.

The Job runs in the endpoint's namespace, from the endpoint's own worker image (vLLM 0.19.0 is
in both DPD images), on a node of the endpoint's instance type near its pods, where that image
is already on disk. It sends the workload's traffic to the router's Service
(`manifest.router_url`), so requests take the paths real clients take, and prints vLLM's result
JSON between two marker lines, so that `kubectl logs job/...` gives it back.

vLLM's random dataset draws prompts from the model's tokenizer, which `vllm bench serve` loads
in the Job (without one it writes no latency figures: serve.py, `if ... tokenizer:`). The Job
reads the tokenizer where the weights are, without a copy: an S3 prefix through the Mountpoint
S3 CSI driver the stack installs (a read-only PersistentVolume of that prefix; Mountpoint
fetches only the files opened, the tokenizer's few MB), an FSx file system through the FSx CSI
driver, or a Hugging Face repository by name, with the endpoint's token when it has one.
"""

from __future__ import annotations

import math
import shlex
from dataclasses import dataclass
from typing import Any

from components.endpoint.manifest import (
    HF_TOKEN_KEY,
    MODEL_PATH,
    hf_token_secret_name,
    router_url,
)
from components.endpoint.spec import DpdEndpointSpec
from components.operator.iam import OPERATOR_NAMESPACE
from components.performance.measured import Load, end_to_end_ms
from components.performance.predict import Prediction

# The lines around each result in the Job's log.
BEGIN_MARKER = "----- vllm bench serve result begin -----"
END_MARKER = "----- vllm bench serve result end -----"

# Steady state: each load runs at least 5 minutes and at least ten times the requests it holds
# in flight (Little's law: rate x end-to-end latency), so the ramp at the start and the drain
# at the end are a small part of what is measured; never fewer than 100 prompts.
STEADY_SECONDS = 300
IN_FLIGHT_WAVES = 10
MIN_PROMPTS = 100
# Sent and waited for before each measured run, and left out of its figures: the first
# requests pay for cold connections on the router and the KV path.
WARMUP_REQUESTS = 4
# vLLM's percentiles the report reads: the SLO is at the 90th.
PERCENTILES = "50,90,99"
PERCENTILE_METRICS = "ttft,tpot,itl,e2el"
# vllm bench serve polls the endpoint this long before its first request.
READY_SECONDS = 600
# A run three times as long as the model predicts is stuck; Kubernetes then ends the Job. Its
# start (scheduling, importing vLLM, loading the tokenizer) gets 10 minutes on top.
DEADLINE_FACTOR = 3
START_SECONDS = 600
# The logs and the finished Job stay a day, then Kubernetes deletes the Job and its pod.
KEEP_SECONDS = 86_400

# The client: one asyncio process and the tokenizer; far from what a model node has spare.
CPU = "4"
MEMORY = "16Gi"
# A user ID of the restricted range (checkov CKV_K8S_40: 10000 or more), not root.
USER_ID = 10001
RESULTS = "/tmp/results"
WEIGHTS = "/mnt/weights"
HF_TOKEN_FILE = "/var/run/secrets/huggingface/token"
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


class BenchError(ValueError):
    """Why the Job can't be written; the message starts with the key or flag to change."""


@dataclass(frozen=True)
class BenchRun:
    """One `vllm bench serve` in the Job: its load, how many prompts, and the prediction the
    prompts were counted from."""

    load: Load
    prompts: int
    prediction: Prediction

    @property
    def seconds(self) -> float:
        """How long the model says it takes: the prompts at the served rate, then one
        request's end-to-end latency to drain."""
        served = max(self.prediction.requests_per_second, 1e-9)
        return self.prompts / served + end_to_end_ms(self.prediction, self.load.output_tokens) / 1e3


def prompt_count(load: Load, prediction: Prediction) -> int:
    """Enough prompts for a steady state: an open loop arrives at its own rate, even past the
    layout's capacity; a closed loop at the rate its clients are served."""
    if load.closed_loop:
        rate = prediction.requests_per_second
        in_flight = float(load.concurrency or 1)
    else:
        rate = load.requests_per_second or prediction.requests_per_second
        in_flight = rate * end_to_end_ms(prediction, load.output_tokens) / 1e3
    return max(
        MIN_PROMPTS,
        math.ceil(rate * STEADY_SECONDS),
        math.ceil(IN_FLIGHT_WAVES * in_flight),
    )


def job_name(spec: DpdEndpointSpec) -> str:
    return f"{spec.name}-bench"


def _weights_volume_name(spec: DpdEndpointSpec) -> str:
    # PersistentVolumes are cluster-wide: the namespace keeps two endpoints' apart.
    return f"{spec.name}-{spec.namespace}-bench-weights"


def _client(spec: DpdEndpointSpec) -> tuple[str, str]:
    """vLLM's backend and the request path: the endpoint's own completions API when its
    invocationEndpoint names one, else the plain completions API vLLM always serves."""
    path = (spec.invocation_endpoint or "").strip("/")
    if path == "v1/chat/completions":
        return "openai-chat", "/v1/chat/completions"
    return "openai", "/v1/completions"


def _weights_objects(spec: DpdEndpointSpec, index: int, model_bucket: str, region: str):
    """The PersistentVolume and claim the tokenizer is read through, the path it is at, and
    the volume's mount; ([], tokenizer name, None) for Hugging Face."""
    source = spec.model_source
    name = _weights_volume_name(spec)
    key = f"endpoints[{index}].modelSource"
    if source.hugging_face is not None:
        return [], source.hugging_face.model_id, None
    if source.s3 is not None:
        # The Mountpoint S3 CSI driver's static provisioning (awslabs/mountpoint-s3-csi-driver,
        # examples/kubernetes/static_provisioning: static_provisioning.yaml, non_root.yaml);
        # ReadOnlyMany mounts it read-only. Its files belong to the Job's user.
        prefix = source.s3.prefix.strip("/") + "/"
        csi = {
            "driver": "s3.csi.aws.com",
            "volumeHandle": name,
            "volumeAttributes": {"bucketName": source.s3.bucket or model_bucket},
        }
        options = [
            f"region {source.s3.region or region}",
            f"prefix {prefix}",
            f"uid={USER_ID}",
            f"gid={USER_ID}",
            "allow-other",
        ]
        path = WEIGHTS
    else:
        fsx = source.fsx
        assert fsx is not None  # ModelSource guarantees exactly one source
        if not fsx.dns_name or not fsx.mount_name:
            raise BenchError(
                f"{key}.fsx: the benchmark mounts the file system to read the tokenizer, and "
                "needs its dnsName and mountName (`aws fsx describe-file-systems` shows both)"
            )
        # The FSx for Lustre CSI driver's static provisioning: the file system ID as the
        # volume handle, its DNS and mount names as attributes.
        csi = {
            "driver": "fsx.csi.aws.com",
            "volumeHandle": fsx.file_system_id,
            "volumeAttributes": {"dnsname": fsx.dns_name, "mountname": fsx.mount_name},
        }
        options = ["flock"]
        path = f"{WEIGHTS}/{fsx.path.strip('/')}" if fsx.path else WEIGHTS
    claim = {"namespace": spec.namespace, "name": name}
    volume = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name, "labels": _labels(spec)},
        "spec": {
            # Required by the API, ignored by both drivers.
            "capacity": {"storage": "1Gi"},
            "accessModes": ["ReadOnlyMany"],
            "storageClassName": "",
            "claimRef": claim,
            "mountOptions": options,
            "csi": csi,
        },
    }
    persistent_claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {**claim, "labels": _labels(spec)},
        "spec": {
            "accessModes": ["ReadOnlyMany"],
            "storageClassName": "",
            "resources": {"requests": {"storage": "1Gi"}},
            "volumeName": name,
        },
    }
    mount = {"name": "weights", "mountPath": WEIGHTS, "readOnly": True}
    return [volume, persistent_claim], path, mount


def _labels(spec: DpdEndpointSpec) -> dict[str, str]:
    return {"app.kubernetes.io/name": "vllm-bench", "app.kubernetes.io/instance": spec.name}


def _metadata_args(stack: str, spec: DpdEndpointSpec) -> list[str]:
    """What `bench results` checks the result against, written by vLLM into its JSON
    (`--metadata KEY=VALUE`: serve.py puts each at the top level)."""
    tp = spec.tensor_parallel_size
    return [
        f"dpd_stack={stack}",
        f"dpd_endpoint={spec.name}",
        f"dpd_model={spec.model_name}",
        f"dpd_instance_type={spec.instance_type}",
        f"dpd_image={spec.image}",
        f"dpd_prefill_replicas={spec.prefill.replicas}",
        f"dpd_decode_replicas={spec.decode.replicas}",
        f"dpd_tensor_parallel_size={tp}",
    ]


def bench_args(
    stack: str, spec: DpdEndpointSpec, tokenizer: str, run: BenchRun, result_file: str
) -> list[str]:
    """One run's `vllm bench serve` command line (vLLM 0.19.0, vllm/benchmarks/serve.py)."""
    backend, path = _client(spec)
    load = run.load
    arrivals = (
        ["--max-concurrency", str(load.concurrency)]
        if load.closed_loop
        else ["--request-rate", f"{load.requests_per_second:g}"]
    )
    return [
        "vllm", "bench", "serve",
        "--backend", backend,
        "--base-url", router_url(spec.name, spec.namespace),
        "--endpoint", path,
        # The name vLLM serves the model under: the path of its weights (--model).
        "--model", MODEL_PATH,
        "--tokenizer", tokenizer,
        "--dataset-name", "random",
        "--random-input-len", str(load.input_tokens),
        "--random-output-len", str(load.output_tokens),
        # Every request generates its full output, as the workload's outputTokens says.
        "--ignore-eos",
        "--num-prompts", str(run.prompts),
        *arrivals,
        "--num-warmups", str(WARMUP_REQUESTS),
        "--percentile-metrics", PERCENTILE_METRICS,
        "--metric-percentiles", PERCENTILES,
        "--ready-check-timeout-sec", str(READY_SECONDS),
        "--disable-tqdm",
        "--label", "hyperpod-dpd",
        "--save-result",
        "--result-dir", RESULTS,
        "--result-filename", result_file,
        "--metadata", *_metadata_args(stack, spec),
    ]  # fmt: skip


def bench_script(stack: str, spec: DpdEndpointSpec, tokenizer: str, runs: list[BenchRun]) -> str:
    """The container's POSIX shell script: each run, then its result between the markers."""
    lines = ["set -eu", f"mkdir -p {RESULTS}"]
    for n, run in enumerate(runs, start=1):
        result = f"run-{n}.json"
        lines += [
            shlex.join(bench_args(stack, spec, tokenizer, run, result)),
            f"echo {shlex.quote(BEGIN_MARKER)}",
            f"cat {RESULTS}/{result}",
            "echo",
            f"echo {shlex.quote(END_MARKER)}",
        ]
    return "\n".join(lines) + "\n"


def _environment(spec: DpdEndpointSpec) -> list[dict[str, str]]:
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
    if _hf_token_secret(spec) is not None:
        # huggingface_hub reads the token from this file (its HF_TOKEN_PATH variable), so the
        # token is never an environment variable.
        env.append({"name": "HF_TOKEN_PATH", "value": HF_TOKEN_FILE})
    return env


def _hf_token_secret(spec: DpdEndpointSpec) -> tuple[str, str] | None:
    hf = spec.model_source.hugging_face
    if hf is None:
        return None
    if hf.token_secret_ref is not None:
        return hf.token_secret_ref.name, hf.token_secret_ref.key
    if hf.token_config_key:
        return hf_token_secret_name(spec.name), HF_TOKEN_KEY
    return None


def _annotations(spec: DpdEndpointSpec) -> dict[str, str]:
    skips = dict(CHECKOV_SKIPS)
    if spec.namespace == "default":
        skips[DEFAULT_NAMESPACE_SKIP[0]] = DEFAULT_NAMESPACE_SKIP[1]
    return {
        f"checkov.io/skip{n}": f"{check}={reason}"
        for n, (check, reason) in enumerate(sorted(skips.items()), start=1)
    }


def _pod_spec(
    spec: DpdEndpointSpec, script: str, weights_mount: dict[str, Any] | None
) -> dict[str, Any]:
    mounts = [{"name": "scratch", "mountPath": "/tmp"}]
    volumes: list[dict[str, Any]] = [{"name": "scratch", "emptyDir": {}}]
    if weights_mount is not None:
        mounts.append(weights_mount)
        volumes.append(
            {
                "name": "weights",
                "persistentVolumeClaim": {
                    "claimName": _weights_volume_name(spec),
                    "readOnly": True,
                },
            }
        )
    if (secret := _hf_token_secret(spec)) is not None:
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


def _network_policy(spec: DpdEndpointSpec) -> dict[str, Any]:
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
        "metadata": {"name": job_name(spec), "namespace": spec.namespace, "labels": _labels(spec)},
        "spec": {
            "podSelector": {"matchLabels": _labels(spec)},
            "policyTypes": ["Ingress", "Egress"],
            "egress": egress,
        },
    }


def bench_manifests(
    stack: str,
    spec: DpdEndpointSpec,
    index: int,
    runs: list[BenchRun],
    *,
    model_bucket: str,
    region: str,
) -> list[dict[str, Any]]:
    """The objects to apply, in order: the weights' PersistentVolume and claim (none for
    Hugging Face), the Job's NetworkPolicy, then the Job."""
    weights, tokenizer, mount = _weights_objects(spec, index, model_bucket, region)
    script = bench_script(stack, spec, tokenizer, runs)
    deadline = DEADLINE_FACTOR * sum(run.seconds for run in runs) + START_SECONDS
    deadline += READY_SECONDS * len(runs)
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {
            "name": job_name(spec),
            "namespace": spec.namespace,
            "labels": _labels(spec),
            "annotations": _annotations(spec),
        },
        "spec": {
            # A failed benchmark is read, not run again: a retry would add its load to what
            # the endpoint still serves from the first.
            "backoffLimit": 0,
            "activeDeadlineSeconds": math.ceil(deadline),
            "ttlSecondsAfterFinished": KEEP_SECONDS,
            "template": {
                "metadata": {"labels": _labels(spec)},
                "spec": _pod_spec(spec, script, mount),
            },
        },
    }
    return [*weights, _network_policy(spec), job]
