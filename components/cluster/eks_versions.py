"""The Kubernetes versions Amazon EKS offers, and until when.

Source: "Understand the Kubernetes version lifecycle on EKS", section "Amazon EKS Kubernetes
release calendar" (docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions.html), read
2026-12-01 through its source in awsdocs/amazon-eks-user-guide
(latest/ug/versioning/kubernetes-versions.adoc): the newest copy found lists 1.29 to 1.34, an
older one 1.27 to 1.33; their shared rows agree. 1.35's row is from the calendar as DESIGN.md
("Kubernetes versions") records it: released 2026-01-28, standard support until
2027-03-27, extended support until 2028-03-27. The same page:

- A version has standard support for 14 months after EKS releases it, then extended support
  for 12 more, at an additional cost per cluster hour. The calendar's dates are UTC+0, and
  extended support is billed from the start of the end-of-standard-support day.
- From the end-of-extended-support date, EKS creates no new cluster on the version. It
  upgrades existing control planes to the earliest supported version at any time after that
  date, without notice; nodes and add-ons stay behind until you update them.

The price: AWS Containers blog, "Amazon EKS extended support for Kubernetes versions pricing"
(linked from that page, and the figures of aws.amazon.com/eks/pricing): a cluster in extended
support costs $0.60 per cluster per hour in total, against $0.10 in standard support.

What a cluster does on its end-of-standard-support day is its upgrade policy's `supportType`
("Cluster upgrade policy", docs.aws.amazon.com/eks/latest/userguide/view-upgrade-policy.html,
and the EKS API's UpgradePolicyRequest): EXTENDED (the API's default, and pulumi-eks's) enters
extended support and its billing; STANDARD is upgraded automatically to the next version.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Literal

from components.cluster.kubernetes_versions import minor_version

STANDARD_PRICE_PER_HOUR = 0.10
EXTENDED_PRICE_PER_HOUR = 0.60
PRICE_SOURCE = "aws.amazon.com/eks/pricing"

SupportType = Literal["STANDARD", "EXTENDED"]

SupportPhase = Literal["standard", "extended", "ended"]


@dataclass(frozen=True)
class EksSupport:
    # The first day without standard support, when extended support (and its billing) begins.
    end_of_standard: date
    # The first day EKS refuses new clusters on the version and may upgrade existing ones.
    end_of_extended: date

    def phase(self, today: date) -> SupportPhase:
        if today >= self.end_of_extended:
            return "ended"
        return "extended" if today >= self.end_of_standard else "standard"


EKS_KUBERNETES_VERSIONS = {
    "1.27": EksSupport(end_of_standard=date(2024, 7, 24), end_of_extended=date(2025, 7, 24)),
    "1.28": EksSupport(end_of_standard=date(2024, 11, 26), end_of_extended=date(2025, 11, 26)),
    "1.29": EksSupport(end_of_standard=date(2025, 3, 23), end_of_extended=date(2026, 3, 23)),
    "1.30": EksSupport(end_of_standard=date(2025, 7, 23), end_of_extended=date(2026, 7, 23)),
    "1.31": EksSupport(end_of_standard=date(2025, 11, 26), end_of_extended=date(2026, 11, 26)),
    "1.32": EksSupport(end_of_standard=date(2026, 3, 23), end_of_extended=date(2027, 3, 23)),
    "1.33": EksSupport(end_of_standard=date(2026, 7, 29), end_of_extended=date(2027, 7, 29)),
    "1.34": EksSupport(end_of_standard=date(2026, 12, 2), end_of_extended=date(2027, 12, 2)),
    "1.35": EksSupport(end_of_standard=date(2027, 3, 27), end_of_extended=date(2028, 3, 27)),
}


def eks_support(version: str) -> EksSupport | None:
    """EKS's dates for `version` (`1.33` or `v1.33.4-eks-…`), or None when its calendar has
    no such version."""
    return EKS_KUBERNETES_VERSIONS.get(minor_version(version))
