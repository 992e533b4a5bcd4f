"""HyperPod instance groups: which kind each is, what is allowed, and the arguments AWS takes."""

from collections.abc import Sequence

from components.cluster.instance_types import (
    GPU_INSTANCE_TYPES,
    SYSTEM_GROUP_EXAMPLE,
    SYSTEM_GROUP_MIN_VCPUS,
    is_accelerated,
    is_graviton,
    vcpus,
)
from components.cluster.spec import DEEP_HEALTH_CHECKS, InstanceGroupSpec
from components.core.findings import Finding, error, warning
from components.core.reuses import reuses


def is_gpu_group(group: InstanceGroupSpec) -> bool:
    """A group of a GPU type the stack knows, DPD's or not: what endpoints run on."""
    return group.instance_type in GPU_INSTANCE_TYPES


def nodes_by_az(groups: Sequence[InstanceGroupSpec]) -> dict[str, int]:
    azs = dict.fromkeys(g.availability_zone_id for g in groups)
    return {az: sum(g.instance_count for g in groups if g.availability_zone_id == az) for az in azs}


def _is_system_capable(group: InstanceGroupSpec) -> bool:
    cores = vcpus(group.instance_type)
    return (
        not is_accelerated(group.instance_type)
        and not is_graviton(group.instance_type)
        and cores is not None
        and cores >= SYSTEM_GROUP_MIN_VCPUS
    )


def check_instance_groups(groups: Sequence[InstanceGroupSpec]) -> list[Finding]:
    """Fields are relative to `instanceGroups`."""
    found = [
        error(
            "duplicate-group",
            f"[{i}].name",
            f"{groups[i].name!r} names another group too; names are unique",
        )
        for i, _ in reuses([group.name for group in groups])
    ]
    found += [
        error(
            "gpu-type-unknown",
            f"[{i}].instanceType",
            f"{group.instance_type!r} is not allowed; GPU groups run endpoints, whose GPUs "
            f"and memory the stack must know: one of {', '.join(GPU_INSTANCE_TYPES)}",
        )
        for i, group in enumerate(groups)
        if is_accelerated(group.instance_type) and not is_gpu_group(group)
    ]
    if not groups or any(_is_system_capable(g) for g in groups):
        return found
    cpu = [(i, g) for i, g in enumerate(groups) if not is_accelerated(g.instance_type)]
    need = (
        f"an amd64 type with {SYSTEM_GROUP_MIN_VCPUS} vCPUs or more, such as "
        f"{SYSTEM_GROUP_EXAMPLE}, for the inference operator's pods"
    )
    if not cpu:
        return [*found, error("no-system-group", "", f"has no CPU system group; add one of {need}")]
    i, group = cpu[0]
    message = f"{group.instance_type!r} is too small for the system group; it needs {need}"
    return [*found, error("system-group-too-small", f"[{i}].instanceType", message)]


# Taints that keep pods without a matching toleration off a node (NoExecute evicts them too).
HARD_TAINTS = ("NoSchedule", "NoExecute")


def hard_taint(group: InstanceGroupSpec) -> tuple[int, str] | None:
    """The group's first taint that keeps untolerating pods off, with how it reads."""
    for j, taint in enumerate(group.taints):
        if taint.effect in HARD_TAINTS:
            value = f"={taint.value}" if taint.value else ""
            return j, f"{taint.key}{value}:{taint.effect}"
    return None


def check_system_taints(groups: Sequence[InstanceGroupSpec]) -> list[Finding]:
    """The operator and the add-ons need a group they tolerate: they set no tolerations for
    the groups' taints. Fields are relative to `instanceGroups`."""
    system = [(i, g) for i, g in enumerate(groups) if not is_accelerated(g.instance_type)]
    if groups and all(hard_taint(g) for g in groups):
        i, group = (system or [(0, groups[0])])[0]
        j, taint = hard_taint(group)
        return [
            error(
                "taint-strands-system-pods",
                f"[{i}].taints[{j}]",
                f"{taint}: with every group tainted, the inference operator, cert-manager and "
                "the other add-ons have no node to run on; leave the system group untainted",
            )
        ]
    if not system or not all(hard_taint(g) for _, g in system):
        return []
    i, group = system[0]
    j, taint = hard_taint(group)
    return [
        warning(
            "taint-moves-system-pods",
            f"[{i}].taints[{j}]",
            f"{taint} keeps the inference operator and the add-ons off the CPU system "
            "group, so they take pod slots on the GPU nodes instead",
        )
    ]


def deep_health_checks(group: InstanceGroupSpec, *, autoscaled: bool = False) -> list[str]:
    """None runs both on GPU groups, except those Karpenter scales (it supports no checks)."""
    if group.deep_health_checks is not None:
        return list(group.deep_health_checks)
    return list(DEEP_HEALTH_CHECKS) if is_gpu_group(group) and not autoscaled else []


def instance_group_args(
    group: InstanceGroupSpec,
    *,
    execution_role: object,
    subnet_id: object,
    security_group_id: object,
    source_s3_uri: object,
    on_create: str,
    autoscaled: bool = False,
) -> dict:
    """One `instance_groups` entry, pinned to its AZ's subnet. A group Karpenter scales starts
    at 0 nodes, as AWS asks; its instanceCount caps the pool."""
    args: dict = {
        "instance_group_name": group.name,
        "instance_type": group.instance_type,
        "instance_count": 0 if autoscaled else group.instance_count,
        "execution_role": execution_role,
        "threads_per_core": group.threads_per_core,
        "instance_storage_configs": [
            {"ebs_volume_config": {"volume_size_in_gb": group.ebs_volume_size_gb}}
        ],
        "life_cycle_config": {"source_s3_uri": source_s3_uri, "on_create": on_create},
        "override_vpc_config": {"security_group_ids": [security_group_id], "subnets": [subnet_id]},
    }
    if group.min_instance_count is not None and not autoscaled:
        args["min_instance_count"] = group.min_instance_count
    if checks := deep_health_checks(group, autoscaled=autoscaled):
        args["on_start_deep_health_checks"] = checks
    if group.training_plan_arn:
        args["training_plan_arn"] = group.training_plan_arn
    if group.labels or group.taints:
        args["kubernetes_config"] = {
            "labels": dict(group.labels),
            "taints": [t.model_dump(exclude_none=True) for t in group.taints],
        }
    return args
