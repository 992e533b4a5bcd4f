"""EKS's calendar: which support a version has on a given day (dates are UTC+0)."""

from datetime import date

import pytest

from components.cluster.eks_versions import EKS_KUBERNETES_VERSIONS, eks_support
from components.cluster.kubernetes_versions import HYPERPOD_KUBERNETES_VERSIONS


@pytest.mark.parametrize(
    "today, phase",
    [
        (date(2025, 11, 25), "standard"),
        # Extended support, and its billing, begin on the end-of-standard-support day.
        (date(2025, 11, 26), "extended"),
        (date(2026, 11, 25), "extended"),
        # From the end-of-extended-support day EKS creates no cluster on the version.
        (date(2026, 11, 26), "ended"),
    ],
)
def test_the_phase_of_1_31_turns_on_the_calendar_dates(today, phase):
    assert EKS_KUBERNETES_VERSIONS["1.31"].phase(today) == phase


def test_the_version_eks_reports_finds_its_minor_version():
    assert eks_support("v1.33.4-eks-1234567") == EKS_KUBERNETES_VERSIONS["1.33"]
    assert eks_support("1.36") is None


def test_every_version_hyperpod_supports_has_eks_dates():
    assert set(HYPERPOD_KUBERNETES_VERSIONS) <= set(EKS_KUBERNETES_VERSIONS)


def test_extended_support_lasts_twelve_months_after_standard_support():
    for support in EKS_KUBERNETES_VERSIONS.values():
        assert support.end_of_extended == support.end_of_standard.replace(
            year=support.end_of_standard.year + 1
        )
