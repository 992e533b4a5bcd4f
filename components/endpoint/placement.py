"""Which nodes an endpoint's pods may take beside its instanceType: the CRD's instanceTypes
(in order of preference) or a node affinity, each exclusive with instanceType and with the other
(the CRD's description of nodeAffinity). instanceType stays the type the stack sizes the pods
and counts the nodes for, so it must be one the pods may land on; unset, it is the first they
name. An empty nodeAffinity places the pods anywhere, as none does, and is not written."""

from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.core.findings import Finding, error

# The label every node carries with its instance type (Kubernetes' well-known labels).
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"


def affinity_types(affinity: dict) -> list[str]:
    """The instance types the affinity's required terms name, in their order, if they name any."""
    required = affinity.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    named = [
        value
        for term in required.get("nodeSelectorTerms") or []
        for expression in term.get("matchExpressions") or []
        if expression.get("key") == INSTANCE_TYPE_LABEL and expression.get("operator") == "In"
        for value in expression.get("values") or []
    ]
    return list(dict.fromkeys(named))


def placed_types(item: dict) -> list[str]:
    """The instance types an endpoint item places its pods on beside instanceType, in order."""
    listed, affinity = item.get("instanceTypes"), item.get("nodeAffinity")
    if isinstance(listed, list):
        return [name for name in listed if isinstance(name, str)]
    return affinity_types(affinity) if isinstance(affinity, dict) else []


def check_placement(
    instance_type: str, instance_types: list[str] | None, affinity: dict | None, dpd: bool
) -> list[Finding]:
    found = []
    if dpd and (instance_types is not None or affinity is not None):
        # The DPD guardrails (the program's and the policy pack's) read instanceType.
        return [
            error(
                "dpd-placement",
                "instanceTypes" if instance_types is not None else "nodeAffinity",
                "DPD runs on one instanceType, which its guardrails read; serve aggregated to "
                "place the pods by instanceTypes or nodeAffinity",
            )
        ]
    if instance_types is not None and affinity is not None:
        found.append(
            error(
                "instance-types-with-affinity",
                "nodeAffinity",
                "the CRD takes instanceTypes or nodeAffinity, not both; keep one",
            )
        )
    for i, name in enumerate(instance_types or []):
        if name not in GPU_INSTANCE_TYPES:
            found.append(
                error(
                    "unknown-instance-type",
                    f"instanceTypes[{i}]",
                    f"{name} is not one of the GPU types the stack knows: "
                    f"{', '.join(GPU_INSTANCE_TYPES)}",
                )
            )
    if instance_types is not None and instance_type not in instance_types:
        found.append(
            error(
                "instance-type-not-in-instance-types",
                "instanceTypes",
                f"leaves out instanceType {instance_type}, which the stack sizes the pods for; "
                "add it",
            )
        )
    named = affinity_types(affinity or {})
    if named and instance_type not in named:
        found.append(
            error(
                "instance-type-outside-affinity",
                "nodeAffinity",
                f"requires {INSTANCE_TYPE_LABEL} in {', '.join(named)}, which leaves "
                f"out instanceType {instance_type}, the type the stack sizes the pods for",
            )
        )
    return found
