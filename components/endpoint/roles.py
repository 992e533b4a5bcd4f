"""The prefill and decode roles: how many pods each runs, the GPUs each pod requests, and the
availability zone they share."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import Field, field_validator

from components.cluster.instance_types import DPD_INSTANCE_TYPES
from components.core.findings import Finding, error, warning
from components.core.kubernetes_names import LabelKey, LabelValue
from components.core.spec import Spec, numbers_as_text
from components.endpoint.autoscaling import INT32_MAX, RoleAutoscaling
from components.network.spec import is_az_id, is_az_name

# The operator's --max-num-seqs on each role's pods when the role sets none.
OPERATOR_PREFILL_MAX_NUM_SEQS = 16
OPERATOR_DECODE_MAX_NUM_SEQS = 32


class RoleSpec(Spec):
    replicas: int = Field(1, ge=1, le=INT32_MAX)
    gpus: int = Field(8, ge=1)
    # None keeps the operator's default: 16 on prefill, 32 on decode.
    max_num_seqs: int | None = Field(None, ge=1)
    # None inherits the endpoint's gpuMemoryUtilization.
    gpu_memory_utilization: float | None = Field(None, gt=0, le=1)
    args: list[str] = []
    node_selector: dict[LabelKey, LabelValue] = {}
    # With autoscaling, `replicas` is the initial count.
    autoscaling: RoleAutoscaling | None = None

    _numbers_as_text = field_validator("node_selector", mode="before")(numbers_as_text)

    @property
    def max_replicas(self) -> int:
        """The most pods of this role there can be."""
        return self.autoscaling.max_replicas if self.autoscaling else self.replicas

    @property
    def min_replicas(self) -> int:
        return self.autoscaling.min_replicas if self.autoscaling else self.replicas


class TopologySpec(Spec):
    same_az: bool = Field(True, alias="sameAZ")
    # One of the stack's AZs, by ID or by name; the manifest carries the name the deploying
    # account gives it, the one node labels carry (components/network/zones.py).
    availability_zone: str | None = None
    placement_group: str | None = None

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
    found = []
    node_gpus = DPD_INSTANCE_TYPES[instance_type].gpus
    for role, settings in roles.items():
        field = f"{role}.gpus"
        if settings.gpus > node_gpus:
            found.append(
                error(
                    "gpus-exceed-node",
                    field,
                    f"{settings.gpus} GPUs do not fit one {instance_type} node; "
                    f"allowed 1..{node_gpus}",
                )
            )
        elif settings.gpus < tp:
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
