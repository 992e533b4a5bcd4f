"""The Kubernetes versions SageMaker HyperPod supports for its EKS orchestrator.

Source: "Getting started with Amazon EKS support in SageMaker HyperPod", requirement 1,
Kubernetes version support (docs.aws.amazon.com/sagemaker/latest/dg/
sagemaker-hyperpod-eks-prerequisites.html), read 2026-12-01. The newest copy found lists
1.28 to 1.34 (docs.amazonaws.cn/sagemaker/latest/dg/sagemaker-hyperpod-eks-prerequisites.md);
older copies stop at 1.32 or 1.33. No copy lists 1.35, so 1.35 is refused until one does.
"""

from __future__ import annotations

HYPERPOD_KUBERNETES_VERSIONS = ("1.28", "1.29", "1.30", "1.31", "1.32", "1.33", "1.34")


def minor_version(version: str) -> str:
    """`1.33` from what EKS reports (`1.33`) or a full version (`v1.33.4-eks-…`)."""
    return ".".join(version.removeprefix("v").split(".")[:2])


def unsupported_kubernetes(version: str) -> str | None:
    """What HyperPod allows when it refuses `version`, or None when it supports it."""
    if minor_version(version) in HYPERPOD_KUBERNETES_VERSIONS:
        return None
    return f"SageMaker HyperPod supports {', '.join(HYPERPOD_KUBERNETES_VERSIONS)}"
