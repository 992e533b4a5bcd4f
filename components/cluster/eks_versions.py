"""The Kubernetes versions Amazon EKS offers, and until when.

Source: EKS's "Kubernetes release calendar" (awsdocs/amazon-eks-user-guide,
latest/ug/versioning/kubernetes-versions.adoc, read 2026-12-01; 1.35's row as DESIGN.md records
it). Standard support lasts 14 months, extended support 12 more, billed from the start (UTC) of
the end-of-standard-support day; after extended support EKS creates no cluster on the version
and upgrades control planes without notice. Extended support costs $0.60 per cluster-hour
against $0.10 (AWS Containers blog, "Amazon EKS extended support ... pricing"). On the
end-of-standard-support day the upgrade policy's `supportType` decides: EXTENDED (the API's and
pulumi-eks's default) enters extended support; STANDARD upgrades to the next version.
"""

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
