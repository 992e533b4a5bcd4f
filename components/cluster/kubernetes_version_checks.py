"""What EKS's calendar says about the cluster's Kubernetes version on `today`: the program
passes the UTC date (the calendar's time zone), tests fixed ones."""

from datetime import date

from components.cluster.eks_versions import (
    EKS_KUBERNETES_VERSIONS,
    EXTENDED_PRICE_PER_HOUR,
    PRICE_SOURCE,
    STANDARD_PRICE_PER_HOUR,
    EksSupport,
    SupportType,
    eks_support,
)
from components.cluster.kubernetes_versions import (
    HYPERPOD_KUBERNETES_VERSIONS,
    minor_version,
    unsupported_kubernetes,
)
from components.core.findings import Finding, error, warning

NEW_VERSION_FIELD = "cluster.kubernetesVersion"
SUPPORT_TYPE_FIELD = "cluster.upgradePolicy.supportType"
# How long before a version leaves standard support the program says so: two months to plan the
# upgrade before EKS bills extended support or upgrades the control plane itself.
NOTICE_DAYS = 60
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


def _next_minor(version: str) -> str:
    major, minor = minor_version(version).split(".")
    return f"{major}.{int(minor) + 1}"


def _price_difference() -> str:
    extra = EXTENDED_PRICE_PER_HOUR - STANDARD_PRICE_PER_HOUR
    return (
        f"${EXTENDED_PRICE_PER_HOUR:.2f} per cluster hour instead of "
        f"${STANDARD_PRICE_PER_HOUR:.2f}, ${extra:.2f} more ({PRICE_SOURCE})"
    )


def _leaving_standard(
    version: str,
    support: EksSupport,
    today: date,
    support_type: SupportType,
    field: str = SUPPORT_TYPE_FIELD,
) -> list[Finding]:
    """From NOTICE_DAYS before the end of standard support: what the upgrade policy does then."""
    days = (support.end_of_standard - today).days
    if days > NOTICE_DAYS:
        return []
    when = "tomorrow" if days == 1 else f"in {days} days"
    leaves = f"{version} leaves EKS standard support on {support.end_of_standard} ({when})"
    newer = [
        v
        for v, dates in creatable_versions(today).items()
        if dates.end_of_standard > support.end_of_standard
    ]
    if support_type == "EXTENDED":
        then = (
            f"upgrade to {', '.join(newer)} before then to avoid it"
            if newer
            else "SageMaker HyperPod supports no newer version, so extended support is what "
            "keeps the cluster on one it supports"
        )
        message = (
            f"{leaves}; with supportType EXTENDED the cluster stays on it and EKS bills "
            f"{_price_difference()}; {then}"
        )
    else:
        target = _next_minor(version)
        hyperpod = unsupported_kubernetes(target)
        then = (
            f", a version HyperPod refuses ({hyperpod}); set EXTENDED to stay on {version} "
            f"for {_price_difference()}"
            if hyperpod
            else "; HyperPod's nodes and the add-ons stay behind until you update them"
        )
        message = (
            f"{leaves}; with supportType STANDARD EKS then upgrades the control plane to "
            f"{target} by itself{then}"
        )
    return [warning("eks-standard-support-ends", field, message)]


def check_new_cluster_version(
    version: str, today: date, support_type: SupportType = "EXTENDED"
) -> list[Finding]:
    """A version HyperPod doesn't support or EKS no longer creates is refused; one in extended
    support costs more, and one about to leave standard support says what its upgrade policy
    will do then."""
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
        return _leaving_standard(version, support, today, support_type)
    creatable = creatable_versions(today).items()
    standard = [v for v, dates in creatable if dates.phase(today) == "standard"]
    advice = f"; in standard support: {', '.join(standard)}" if standard else ""
    upgraded = (
        f"; with {SUPPORT_TYPE_FIELD} STANDARD, EKS may upgrade it to {_next_minor(version)} "
        "by itself at any time"
        if support_type == "STANDARD"
        else ""
    )
    return [
        warning(
            "eks-extended-support",
            NEW_VERSION_FIELD,
            f"{version} is {_in_extended_support(support)}{advice}{upgraded}",
        )
    ]


def check_existing_cluster_version(
    cluster: str, version: str, today: date, support_type: SupportType = "EXTENDED"
) -> list[Finding]:
    """Warnings only: the stack does not choose an existing cluster's version, and EKS upgrades
    it by itself after extended support, so refusing would only keep the stack from managing its
    endpoints. `support_type` is the cluster's own upgrade policy."""
    support = eks_support(version)
    if support is None:
        return []
    runs = f"{cluster!r} runs Kubernetes {version}"
    if support.phase(today) == "standard":
        return [
            Finding(f.level, f.code, f.field, f"{runs}: {f.message}")
            for f in _leaving_standard(
                minor_version(version), support, today, support_type, EXISTING_CLUSTER_FIELD
            )
        ]
    if support.phase(today) == "extended":
        message = f"{runs}, {_in_extended_support(support)}"
    else:
        message = (
            f"{runs}, whose EKS extended support ended on {support.end_of_extended}; EKS "
            "upgrades its control plane to the earliest supported version at any time, "
            "without notice, and leaves nodes and add-ons behind: upgrade the cluster first"
        )
    return [warning("eks-version-support", EXISTING_CLUSTER_FIELD, message)]
