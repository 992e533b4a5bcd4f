"""The dev endpoint's objects as the Kubernetes API returns them (`kubectl get -o json`: a List
of items with metadata, spec and status), and its containers' logs as the operator's pods print
them: the lines are AWS's DPD guide's and troubleshooting page's, around lines shaped as vLLM
and LMCache print theirs."""

import json
from pathlib import Path
from typing import Any

IMAGE = "public.ecr.aws/deep-learning-containers/vllm:server-hyperpod-cuda-v1.1"
CAPTURED_AT = "2026-12-05T15:00:00+00:00"
STARTED = "2026-12-05T14:00:00Z"
NS = "default"
ROLE = "inference.sagemaker.aws.amazon.com/dpd-role"
PREFILL_POD = "prefill-dpd-test-7c9d8f6b5d-x2kqp"
DECODE_POD = "decode-dpd-test-5f7b9c8d4f-m8wzt"
ROUTER_POD = "dpd-test-default-router-6d8f7c9b5-q4rtv"
OTEL_IMAGE = "public.ecr.aws/aws-observability/aws-otel-collector:v0.43.1"
ENV = [
    {"name": "HF_HOME", "value": "/tmp/hf_home"},
    {"name": "PD_BUFFER_SIZE", "value": "8589934592"},
    {"name": "LMCACHE_SAVE_DECODE_CACHE", "value": "False"},
    {"name": "PYTHONHASHSEED", "value": "0"},
]


def _container_status(name: str, image: str, ready: bool, state: dict, restarts: int = 0):
    return {
        "name": name,
        "image": image,
        "imageID": f"{image.split(':')[0]}@sha256:{'3f' * 32}",
        "ready": ready,
        "restartCount": restarts,
        "started": "running" in state,
        "state": state,
        "lastState": {},
        "containerID": "containerd://" + "ab" * 32,
    }


def model_pod(
    role: str,
    name: str,
    template_hash: str,
    *,
    worker_ready: bool = True,
    worker_state: dict | None = None,
    env: list[dict] | None = None,
    image: str = IMAGE,
    created: str = STARTED,
    restarts: int = 0,
) -> dict[str, Any]:
    worker = f"{role}-dpd-test"
    state = worker_state or {"running": {"startedAt": created}}
    running = {"running": {"startedAt": created}}
    containers = [
        {
            "name": worker,
            "image": image,
            "args": ["--model", "/opt/ml/model", "--port", "8000"],
            "env": ENV if env is None else env,
            "resources": {
                "limits": {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32"},
                "requests": {"nvidia.com/gpu": "8", "vpc.amazonaws.com/efa": "32"},
            },
        },
        {"name": "nginx", "image": "public.ecr.aws/nginx/nginx:1.27", "resources": {}},
        {"name": "otel-collector", "image": OTEL_IMAGE},
    ]  # fmt: skip
    statuses = [
        _container_status(worker, image, worker_ready, state, restarts),
        _container_status("nginx", containers[1]["image"], True, running),
        _container_status("otel-collector", containers[2]["image"], True, running),
    ]
    phase = "Pending" if "waiting" in state else "Running"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "generateName": f"{role}-dpd-test-{template_hash}-",
            "namespace": NS,
            "uid": "5c1a8d6e-0b7f-4a49-9d1e-2f3c4b5a6d7e",
            "creationTimestamp": created,
            "labels": {ROLE: role, "pod-template-hash": template_hash},
            "ownerReferences": [
                {
                    "apiVersion": "apps/v1",
                    "kind": "ReplicaSet",
                    "name": f"{role}-dpd-test-{template_hash}",
                    "controller": True,
                    "uid": "0d9e8f7a-6b5c-4d3e-2f1a-0b9c8d7e6f5a",
                }
            ],
        },
        "spec": {"containers": containers, "nodeName": "hyperpod-i-0123456789abcdef0"},
        "status": {
            "phase": phase,
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True" if worker_ready else "False",
                    "lastTransitionTime": created,
                },
            ],
            "containerStatuses": statuses,
            "startTime": created,
        },
    }


def router_pod() -> dict[str, Any]:
    running = {"running": {"startedAt": STARTED}}
    image = "public.ecr.aws/sagemaker/hyperpod-dpd-router:v1.0"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": ROUTER_POD,
            "namespace": "hyperpod-inference-system",
            "creationTimestamp": STARTED,
            "labels": {"pod-template-hash": "6d8f7c9b5"},
        },
        "spec": {
            "containers": [
                {"name": "router-container", "image": image},
                {"name": "otel-collector", "image": "otel"},
            ]
        },
        "status": {
            "phase": "Running",
            "containerStatuses": [
                _container_status("router-container", image, True, running),
                _container_status("otel-collector", "otel", True, running),
            ],
        },
    }


def pod_list(*pods: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": list(pods),
            "metadata": {"resourceVersion": ""}}  # fmt: skip


def iec(ready: bool = True) -> dict[str, Any]:
    message = "DPD prefill and decode deployments are ready" if ready else "Deployment in progress"
    return {
        "apiVersion": "inference.sagemaker.aws.amazon.com/v1",
        "kind": "InferenceEndpointConfig",
        "metadata": {"name": "dpd-test", "namespace": NS, "generation": 1},
        "spec": {
            "modelName": "Llama-3.3-70B-Instruct",
            "pdSpec": {"routingThreshold": 4096},
            "worker": {"image": IMAGE, "environmentVariables": ENV},
        },
        "status": {
            "state": "DeploymentComplete" if ready else "DeploymentInProgress",
            "conditions": [
                {
                    "type": "Ready",
                    "status": "True" if ready else "False",
                    "reason": "DeploymentComplete" if ready else "DeploymentInProgress",
                    "message": message,
                    "lastTransitionTime": STARTED,
                    "observedGeneration": 1,
                }
            ],
        },
    }


def event(pod: str, reason: str, message: str, kind: str = "Warning") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{pod}.1836a2f1c0e5b7d9", "namespace": NS},
        "involvedObject": {"kind": "Pod", "name": pod, "namespace": NS},
        "reason": reason,
        "message": message,
        "type": kind,
        "count": 7,
        "firstTimestamp": STARTED,
        "lastTimestamp": "2026-12-05T14:55:00Z",
        "source": {"component": "kubelet"},
    }


def event_list(*events: dict[str, Any]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "items": list(events)}


ENGINE_START = (
    "INFO 12-05 14:06:10 [api_server.py:1880] Starting vLLM API server 0 on http://0.0.0.0:8000\n"
)


def lmcache_config(role: str) -> str:
    return (
        "(EngineCore_DP0 pid=312) [2026-12-05 14:02:11,201] LMCache INFO: LMCache "
        "configuration: {'chunk_size': 256, 'local_cpu': False, 'enable_pd': True, "
        f"'pd_role': '{role}', 'pd_buffer_size': 8589934592, 'pd_buffer_device': 'cuda'}}\n"
    )


# AWS's DPD guide, "Verify KV transfer": one line a TP rank, the size wrapped onto the next.
HEALTHY_RETRIEVAL = (
    "[Worker_TP5] [LMCache INFO] [req_id=cmpl-8f2d41c0a3e94b7d-0] Retrieved 6035 out of 6035 "
    "required tokens (from 6035 total tokens).\n"
    "   size: 0.2344 gb, cost 1.3304 ms, throughput: 176.1686 GB/s\n"
)
FAILED_RETRIEVAL = (
    "[Worker_TP5] [LMCache INFO] [req_id=cmpl-8f2d41c0a3e94b7d-0] Retrieved 0 out of 6035 "
    "required tokens (from 6035 total tokens).\n"
)
ALLOCATION_WAIT = (
    "(EngineCore_DP0 pid=312) [2026-12-05 14:31:02,118] LMCache WARNING: Failed to allocate "
    "memory object, retrying... (pd_backend.py:412:lmcache.v1.storage_backend.pd_backend)\n"
)


def routing_log(long: int = 20, short: int = 2) -> str:
    lines = [
        "[INFO] Conditional routing: estimated_tokens=6750, threshold=4096, disaggregate=True"
    ] * long
    lines += ["[INFO] Conditional routing: estimated_tokens=12, threshold=4096, "
              "disaggregate=False"] * short  # fmt: skip
    return "\n".join(lines) + "\n"


def healthy_logs() -> dict[str, str]:
    return {
        f"{PREFILL_POD}.prefill-dpd-test.log": lmcache_config("sender") + ENGINE_START,
        f"{DECODE_POD}.decode-dpd-test.log": (
            lmcache_config("receiver") + ENGINE_START + HEALTHY_RETRIEVAL * 8
        ),
        f"{ROUTER_POD}.router-container.log": routing_log(),
    }


def healthy_objects() -> dict[str, Any]:
    return {
        "iec.json": iec(),
        "pods.json": pod_list(
            model_pod("prefill", PREFILL_POD, "7c9d8f6b5d"),
            model_pod("decode", DECODE_POD, "5f7b9c8d4f"),
        ),
        "router-pods.json": pod_list(router_pod()),
        "events.json": event_list(),
        "router-events.json": event_list(),
    }


def write_cluster(folder: Path, objects: dict[str, Any], logs: dict[str, str]) -> Path:
    """The files the fake kubectl serves, laid out as `diagnose --save` writes a bundle."""
    (folder / "logs").mkdir(parents=True, exist_ok=True)
    for name, document in objects.items():
        (folder / name).write_text(json.dumps(document, indent=2))
    for name, text in logs.items():
        (folder / "logs" / name).write_text(text)
    (folder / "captured.json").write_text(json.dumps({"capturedAt": CAPTURED_AT}))
    return folder
