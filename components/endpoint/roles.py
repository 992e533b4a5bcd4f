"""The roles of an endpoint's pods (prefill and decode, or an aggregated endpoint's `serving`):
how many pods each runs, the GPUs each requests, and the AZ prefill and decode share."""

from collections.abc import Mapping

from pydantic import Field, field_validator

from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.core.findings import Finding, error, warning
from components.core.kubernetes_names import LabelKey, LabelValue
from components.core.shaped import shaped_str
from components.core.spec import Spec, numbers_as_text
from components.core.units import GIB
from components.endpoint.autoscaling import INT32_MAX, RoleAutoscaling
from components.network.spec import is_az_id, is_az_name

# The operator's --max-num-seqs on each role's pods when the role sets none.
OPERATOR_PREFILL_MAX_NUM_SEQS = 16
OPERATOR_DECODE_MAX_NUM_SEQS = 32

# vLLM's own batch defaults (`EngineArgs.get_batch_defaults`): 1,024 sequences and 8,192 batched
# tokens on GPUs of 70 GiB or more other than the A100, 256 and 2,048 on the others.
VLLM_LARGE_GPU_BYTES = 70 * GIB


def _large_gpu(instance_type: str) -> bool:
    instance = GPU_INSTANCE_TYPES.get(instance_type)  # None: an adopted CPU-only type
    return (
        instance is not None
        and instance.hbm_bytes_per_gpu >= VLLM_LARGE_GPU_BYTES
        and not instance.gpu.startswith("A100")
    )


def vllm_default_max_num_seqs(instance_type: str) -> int:
    return 1024 if _large_gpu(instance_type) else 256


def vllm_default_max_num_batched_tokens(instance_type: str) -> int:
    return 8192 if _large_gpu(instance_type) else 2048


# vLLM has a few hundred flags; a list of more items than this is no command line, and checking
# it would take minutes.
MOST_ARGS = 1000


class RoleSpec(Spec):
    replicas: int = Field(1, ge=1, le=INT32_MAX)
    gpus: int = Field(8, ge=1)
    # None keeps the operator's default: 16 on prefill, 32 on decode.
    max_num_seqs: int | None = Field(None, ge=1)
    # None inherits the endpoint's gpuMemoryUtilization.
    gpu_memory_utilization: float | None = Field(None, gt=0, le=1)
    args: list[str] = Field([], max_length=MOST_ARGS)
    node_selector: dict[LabelKey, LabelValue] = {}
    # With autoscaling, `replicas` is the initial count.
    autoscaling: RoleAutoscaling | None = None

    _numbers_as_text = field_validator("node_selector", mode="before")(numbers_as_text)

    @property
    def max_replicas(self) -> int:
        return self.autoscaling.max_replicas if self.autoscaling else self.replicas

    @property
    def min_replicas(self) -> int:
        return self.autoscaling.min_replicas if self.autoscaling else self.replicas


class TopologySpec(Spec):
    same_az: bool = Field(True, alias="sameAZ")
    # One of the stack's AZs, by ID or by name; the manifest carries the name the deploying
    # account gives it, the one node labels carry (components/network/zones.py).
    availability_zone: str | None = None
    # EC2's placement group names: up to 255 ASCII characters (CreatePlacementGroup).
    placement_group: (
        shaped_str(
            r"[ -~]{1,255}", "must be an EC2 placement group name: 1 to 255 ASCII characters"
        )
        | None
    ) = None

    @field_validator("availability_zone")
    @classmethod
    def _zone(cls, value: str | None) -> str | None:
        if value is not None and not (is_az_id(value) or is_az_name(value)):
            raise ValueError(
                f"{value!r} is neither an AZ ID (usw2-az2) nor an AZ name (us-west-2b)"
            )
        return value


def check_role_gpus(roles: Mapping[str, RoleSpec], tp: int, instance_type: str) -> list[Finding]:
    """Each role's pod fits one node and holds one tensor-parallel group (of `tp`), no more."""
    if instance_type not in GPU_INSTANCE_TYPES:  # an adopted CPU-only type: no GPUs to check
        return []
    found = []
    node_gpus = GPU_INSTANCE_TYPES[instance_type].gpus
    up_to_node = "1" if node_gpus == 1 else f"1..{node_gpus}"
    # A pod is one node, so no role's GPUs could hold a larger group: the size is what to change.
    tp_fits = tp <= node_gpus
    if not tp_fits:
        found.append(
            error(
                "tp-exceeds-node",
                "tensorParallelSize",
                f"{tp} is more GPUs than one {instance_type} node has ({node_gpus}); "
                f"allowed {'1' if node_gpus == 1 else f'{node_gpus} or less'}",
            )
        )
    for role, settings in roles.items():
        field = f"{role}.gpus"
        if settings.gpus > node_gpus:
            found.append(
                error(
                    "gpus-exceed-node",
                    field,
                    f"{settings.gpus} GPUs do not fit one {instance_type} node; "
                    f"allowed {up_to_node}",
                )
            )
        elif settings.gpus < tp and tp_fits:
            allowed = f"{tp}" if tp == node_gpus else f"{tp}..{node_gpus}"
            found.append(
                error(
                    "gpus-below-tp",
                    field,
                    f"{settings.gpus} GPUs cannot hold tensorParallelSize {tp}; allowed {allowed}",
                )
            )
        elif settings.gpus > tp:
            found.append(
                warning(
                    "gpus-idle",
                    field,
                    f"{settings.gpus} GPUs with tensorParallelSize {tp} leave "
                    f"{settings.gpus - tp} GPUs per pod idle",
                )
            )
    return found


def check_topology(topology: TopologySpec | None) -> list[Finding]:
    if topology is None or topology.same_az:
        return []
    return [
        error(
            "dpd-across-azs",
            "topologySpec.sameAZ",
            "false is not allowed: prefill and decode must share an availability zone "
            "for the KV transfer over EFA",
        )
    ]
