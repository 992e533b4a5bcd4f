"""What EKS's calendar says about the cluster's Kubernetes version on the day the program runs.

HyperPod's list (kubernetes_versions.py) holds without a date; EKS's (eks_versions.py) moves
every day, so `today` is a parameter: the program passes the UTC date (the calendar's time
zone), tests pass fixed ones.
"""

from __future__ import annotations

from datetime import date

from components.cluster.eks_versions import (
    EKS_KUBERNETES_VERSIONS,
    EXTENDED_PRICE_PER_HOUR,
    STANDARD_PRICE_PER_HOUR,
    EksSupport,
    eks_support,
)
from components.cluster.kubernetes_versions import (
    HYPERPOD_KUBERNETES_VERSIONS,
    minor_version,
    unsupported_kubernetes,
)
from components.core.findings import Finding, error, warning

NEW_VERSION_FIELD = "cluster.kubernetesVersion"
EXISTING_CLUSTER_FIELD = "cluster.existing.eksClusterName"


def creatable_versions(today: date) -> dict[str, EksSupport]:
    """The versions a new cluster may take on `today`, oldest first, with EKS's dates: HyperPod
    supports them and EKS still creates clusters on them."""
    found = {}
    for version in HYPERPOD_KUBERNETES_VERSIONS:
        support = eks_support(version)
        if support is not None and support.phase(today) != "ended":
            found[version] = support
    return found


def _in_extended_support(support: EksSupport) -> str:
    return (
        f"in EKS extended support since {support.end_of_standard} (until "
        f"{support.end_of_extended}), which bills ${EXTENDED_PRICE_PER_HOUR:.2f} per cluster "
        f"hour instead of ${STANDARD_PRICE_PER_HOUR:.2f}"
    )


def _refused(version: str, why: str, today: date) -> Finding:
    allowed = ", ".join(creatable_versions(today)) or "none"
    message = f"{version!r} is not allowed; {why}. Versions allowed on {today}: {allowed}"
    return error("kubernetes-version", NEW_VERSION_FIELD, message)


def check_new_cluster_version(version: str, today: date) -> list[Finding]:
    """A version HyperPod doesn't support or EKS no longer creates is refused; one in extended
    support costs more."""
    hyperpod = unsupported_kubernetes(version)
    if hyperpod is not None:
        return [_refused(version, hyperpod, today)]
    # tests/components/cluster/test_eks_versions.py keeps EKS dates for HyperPod's versions.
    support = EKS_KUBERNETES_VERSIONS[minor_version(version)]
    phase = support.phase(today)
    if phase == "ended":
        why = (
            f"EKS's extended support for it ended on {support.end_of_extended}, and EKS "
            "creates no cluster on it since"
        )
        return [_refused(version, why, today)]
    if phase == "standard":
        return []
    creatable = creatable_versions(today).items()
    standard = [v for v, dates in creatable if dates.phase(today) == "standard"]
    advice = f"; in standard support: {', '.join(standard)}" if standard else ""
    return [
        warning(
            "eks-extended-support",
            NEW_VERSION_FIELD,
            f"{version} is {_in_extended_support(support)}{advice}",
        )
    ]


def check_existing_cluster_version(cluster: str, version: str, today: date) -> list[Finding]:
    """Warnings only: the stack does not choose an existing cluster's version, and past the
    end of extended support EKS upgrades the control plane by itself, so refusing would only
    keep the stack from managing its endpoints meanwhile."""
    support = eks_support(version)
    if support is None or support.phase(today) == "standard":
        return []
    runs = f"{cluster!r} runs Kubernetes {version}"
    if support.phase(today) == "extended":
        message = f"{runs}, {_in_extended_support(support)}"
    else:
        message = (
            f"{runs}, whose EKS extended support ended on {support.end_of_extended}; EKS "
            "upgrades its control plane to the earliest supported version at any time, "
            "without notice, and leaves nodes and add-ons behind: upgrade the cluster first"
        )
    return [warning("eks-version-support", EXISTING_CLUSTER_FIELD, message)]
