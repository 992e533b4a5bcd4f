"""The Kubernetes versions SageMaker HyperPod supports for its EKS orchestrator.

Source: "Getting started with Amazon EKS support in SageMaker HyperPod", requirement 1. Its
newest copy lists 1.30 to 1.35 (as DESIGN.md records it); copies read 2026-12-01 list 1.28 to
1.34. 1.28 and 1.29 are gone from EKS too (eks_versions.py).
"""

HYPERPOD_KUBERNETES_VERSIONS = ("1.30", "1.31", "1.32", "1.33", "1.34", "1.35")


def minor_version(version: str) -> str:
    """`1.33` from what EKS reports (`1.33`) or a full version (`v1.33.4-eks-…`)."""
    return ".".join(version.removeprefix("v").split(".")[:2])


def unsupported_kubernetes(version: str) -> str | None:
    """What HyperPod allows when it refuses `version`, or None when it supports it."""
    if minor_version(version) in HYPERPOD_KUBERNETES_VERSIONS:
        return None
    return f"SageMaker HyperPod supports {', '.join(HYPERPOD_KUBERNETES_VERSIONS)}"
