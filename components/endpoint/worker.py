"""The worker container the operator runs for an endpoint: its port, and the CPU, memory and GPUs
it requests and is limited to.

GPUs, an extended resource, cannot be overcommitted: their request must equal their limit
("Schedule GPUs"), so they are written in both, from the roles' `gpus`; CPU and memory as the
user writes them, or as the serving mode needs. A pod that requests more than a node's
allocatable CPU or memory (a limit without a request counting as one) stays Pending.
"""

from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from math import floor
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from components.cluster.instance_types import GPU_INSTANCE_TYPES, GpuInstanceType
from components.core.findings import Finding, error
from components.core.kubernetes_names import KubernetesName, Quantity, quantity_value
from components.core.spec import Spec, numbers_as_text
from components.core.units import GIB

GPU_RESOURCE = "nvidia.com/gpu"
# The forms of a container resources map the settings take: both maps apart, or one map that
# is both.
RESOURCE_MAPS = ("requests", "limits")


def _native(name: str) -> bool:
    """A resource Kubernetes itself accounts (cpu, memory, ephemeral-storage, hugepages-*,
    or any under kubernetes.io/); every other name with a domain is an extended resource
    (k8s.io/kubernetes `helper.IsExtendedResourceName`)."""
    return "/" not in name or name.split("/", 1)[0].endswith("kubernetes.io")


class WorkerResources(Spec):
    """The worker container's `resources`, less its GPUs; or, `asWritten`, all of it as it is
    (an adopted endpoint's whose GPUs the roles' `gpus` cannot write: MIG slices, none, or
    GPUs in limits alone), written as set and the roles' `gpus` only sizing the pods."""

    as_written: bool = False
    requests: dict[str, Quantity] = {}
    # None: the same as the requests (the one-map form).
    limits: dict[str, Quantity] | None = {}

    @model_validator(mode="before")
    @classmethod
    def _one_map_is_both(cls, value: Any) -> Any:
        """`{cpu: "96", memory: 1024Gi}` requests and limits the same; `{requests: {...},
        limits: {...}}` each apart."""
        if isinstance(value, dict) and value and not set(value) <= {*RESOURCE_MAPS, "asWritten"}:
            return {"requests": value, "limits": None}
        return value

    @property
    def limited(self) -> dict[str, str]:
        return self.requests if self.limits is None else self.limits

    _numbers_as_text = field_validator("requests", "limits", mode="before")(numbers_as_text)

    @field_validator("requests", "limits")
    @classmethod
    def _no_gpus(cls, value: dict[str, str] | None, info: ValidationInfo) -> dict[str, str] | None:
        if value and GPU_RESOURCE in value and not info.data.get("as_written"):
            raise ValueError(
                f"{GPU_RESOURCE} is written from the roles' gpus, in requests and limits "
                "alike; set gpus there and leave it out here"
            )
        return value

    @model_validator(mode="after")
    def _kubernetes_takes_them(self) -> "WorkerResources":
        for name, request in self.requests.items():
            limit = self.limited.get(name)
            if not _native(name) and limit != request:
                raise ValueError(
                    f"{name} is an extended resource: Kubernetes takes it in limits, and in "
                    f"requests only with the same value (requests {request}, limits "
                    f"{limit or 'none'}); write it in limits"
                )
            if limit is not None and quantity_value(request) > quantity_value(limit):
                raise ValueError(
                    f"the {name} request {request} is above its limit {limit}, which "
                    "Kubernetes refuses; raise the limit or lower the request"
                )
        return self

    def with_gpus(self, gpus: int) -> dict[str, dict[str, str]]:
        if self.as_written:
            return {k: getattr(self, k) for k in RESOURCE_MAPS if k in self.model_fields_set}
        gpu = {GPU_RESOURCE: str(gpus)}
        return {"requests": {**self.requests, **gpu}, "limits": {**self.limited, **gpu}}


# What a DPD endpoint requests without workerResources: the CRD requires `worker.resources`,
# which the operator ignores for DPD pods. Kept as every deployed DPD stack has it, since a
# change here would change their generation digest and so replace their endpoints.
DPD_WORKER_RESOURCES = WorkerResources(requests={"cpu": "96", "memory": "1024Gi"}, limits=None)
# The part of a node's vCPUs and memory an aggregated endpoint's pods request when all its GPUs
# are theirs. The kubelet's reserves and the GPU nodes' daemon sets take the rest, in figures
# HyperPod does not publish: half fits the smallest type (ml.g5.xlarge) and is DPD's on p5.
NODE_SHARE = Fraction(1, 2)


def default_worker_resources(instance_type: str, serving_gpus: int | None) -> WorkerResources:
    """What an endpoint requests without workerResources: DPD's (`serving_gpus` None) as ever;
    an aggregated pod its GPUs' share of NODE_SHARE of the node, limiting neither, as AWS's
    colocated samples: a CPU limit throttles vLLM's processes, and a memory limit sits beside
    LMCache's CPU cache."""
    if serving_gpus is None:
        return DPD_WORKER_RESOURCES
    if instance_type not in GPU_INSTANCE_TYPES:  # an adopted CPU-only type: no share to take
        return WorkerResources()
    node = GPU_INSTANCE_TYPES[instance_type]
    share = NODE_SHARE * Fraction(serving_gpus, node.gpus)
    return WorkerResources(
        requests={
            "cpu": str(floor(node.vcpu_count * share)),
            "memory": f"{floor(node.memory_gib * share)}Gi",
        }
    )


def _capacity(node: GpuInstanceType) -> dict[str, tuple[Decimal, str]]:
    """What one node has of the resources a pod requests, and how a message says it."""
    return {
        "cpu": (Decimal(node.vcpu_count), f"{node.vcpu_count} vCPUs"),
        "memory": (Decimal(node.memory_gib * GIB), f"{node.memory_gib} GiB of memory"),
    }


def check_worker_fits_node(
    resources: WorkerResources,
    instance_type: str,
    serving_gpus: int,
    instance_types: Sequence[str] | None = None,
) -> list[Finding]:
    """The CPU or memory an aggregated pod requests that no node it may land on has (of
    `instance_types`, or else `instance_type`), so it could never be scheduled. Fields are
    relative to the endpoint."""
    names = instance_types or [instance_type]
    if any(name not in GPU_INSTANCE_TYPES for name in names):
        return []  # a type the stack does not know, which placement.py refuses
    nodes = [GPU_INSTANCE_TYPES[name] for name in names]
    default = default_worker_resources(instance_type, serving_gpus).requests
    found = []
    for name in ("cpu", "memory"):
        # Kubernetes takes a limit without a request as the request too.
        where = "requests" if name in resources.requests else "limits"
        request = resources.requests.get(name) or resources.limited.get(name)
        largest = max(nodes, key=lambda node: _capacity(node)[name][0])
        has, words = _capacity(largest)[name]
        if request is not None and quantity_value(request) > has:
            found.append(
                error(
                    "worker-above-node",
                    f"workerResources.{where}.{name}",
                    f"{request} is more than one {largest.name} node has ({words}, of which "
                    "the kubelet and the system pods keep some), so the pod would stay Pending; "
                    "request what one node leaves free, or leave workerResources out to request "
                    f"{default[name]}, its GPUs' share of half the node",
                )
            )
    return found


class ModelInvocationPort(Spec):
    # None: the port the engine's images serve on (8000 for vLLM, 8080 for the others).
    container_port: int | None = Field(None, ge=1, le=65535)
    name: Literal["http", "grpc"] = "http"


class RequestLimits(Spec):
    """`worker.requestLimits`: what the operator's proxy beside the model server admits (the
    CRD's description: the nginx sidecar), and answers beyond it. None keeps its defaults:
    no limit, and 429."""

    max_concurrent_requests: int | None = Field(None, ge=1, le=2**31 - 1)
    max_queue_size: int | None = Field(None, ge=0, le=2**31 - 1)
    overflow_status_code: int | None = Field(None, ge=400, le=599)


class ModelVolumeMount(Spec):
    """`worker.modelVolumeMount`: the name of the volume the weights are mounted from (the
    volume of a kubernetesVolume source, among `kubernetes.volumes`). Where it is mounted is
    fixed: the settings' flags and variables read the weights at /opt/ml/model."""

    name: KubernetesName = "model-weights"
