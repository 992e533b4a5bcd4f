"""A new cluster's version must be one EKS still creates; extended support and an existing
cluster's ageing version only warn."""

from datetime import date

import pytest

from components.cluster.kubernetes_version_checks import (
    check_existing_cluster_version,
    check_new_cluster_version,
    creatable_versions,
)
from components.core.findings import Finding

DEC_1_2026 = date(2026, 12, 1)


def test_on_dec_1_2026_a_new_cluster_may_take_1_32_to_1_34():
    assert list(creatable_versions(DEC_1_2026)) == ["1.32", "1.33", "1.34"]


def test_a_version_in_standard_support_passes():
    assert check_new_cluster_version("1.34", DEC_1_2026) == []


def test_a_version_past_extended_support_is_refused_naming_the_date_and_todays_versions():
    assert check_new_cluster_version("1.31", DEC_1_2026) == [
        Finding(
            "error",
            "kubernetes-version",
            "cluster.kubernetesVersion",
            "'1.31' is not allowed; EKS's extended support for it ended on 2026-11-26, and EKS "
            "creates no cluster on it since. Versions allowed on 2026-12-01: 1.32, 1.33, 1.34",
        )
    ]


@pytest.mark.parametrize("version", ["1.28", "1.29", "1.30"])
def test_every_older_version_hyperpod_lists_is_refused_too(version):
    (found,) = check_new_cluster_version(version, DEC_1_2026)
    assert found.level == "error"
    assert found.message.endswith("Versions allowed on 2026-12-01: 1.32, 1.33, 1.34")


def test_the_day_before_its_end_the_version_only_warns():
    (found,) = check_new_cluster_version("1.31", date(2026, 11, 25))
    assert found == Finding(
        "warning",
        "eks-extended-support",
        "cluster.kubernetesVersion",
        "1.31 is in EKS extended support since 2025-11-26 (until 2026-11-26), which bills "
        "$0.60 per cluster hour instead of $0.10; in standard support: 1.34",
    )


def test_extended_support_warns_without_advice_when_no_version_has_standard_support():
    (found,) = check_new_cluster_version("1.33", date(2026, 12, 2))
    assert found.message == (
        "1.33 is in EKS extended support since 2026-07-29 (until 2027-07-29), which bills "
        "$0.60 per cluster hour instead of $0.10"
    )


def test_once_every_version_has_ended_none_is_allowed():
    (found,) = check_new_cluster_version("1.34", date(2027, 12, 2))
    assert found.message.endswith(
        "ended on 2027-12-02, and EKS creates no cluster on it since. Versions allowed on "
        "2027-12-02: none"
    )


def test_a_version_hyperpod_does_not_support_is_refused_with_todays_versions():
    (found,) = check_new_cluster_version("1.35", DEC_1_2026)
    assert found.message == (
        "'1.35' is not allowed; SageMaker HyperPod supports 1.28, 1.29, 1.30, 1.31, 1.32, "
        "1.33, 1.34. Versions allowed on 2026-12-01: 1.32, 1.33, 1.34"
    )


def test_an_existing_cluster_past_extended_support_only_warns_of_the_upgrade():
    assert check_existing_cluster_version("shared", "v1.31.9-eks-abc", DEC_1_2026) == [
        Finding(
            "warning",
            "eks-version-support",
            "cluster.existing.eksClusterName",
            "'shared' runs Kubernetes v1.31.9-eks-abc, whose EKS extended support ended on "
            "2026-11-26; EKS upgrades its control plane to the earliest supported version at "
            "any time, without notice, and leaves nodes and add-ons behind: upgrade the "
            "cluster first",
        )
    ]


def test_an_existing_cluster_in_extended_support_warns_of_the_cost():
    (found,) = check_existing_cluster_version("shared", "1.32", DEC_1_2026)
    assert found.message == (
        "'shared' runs Kubernetes 1.32, in EKS extended support since 2026-03-23 (until "
        "2027-03-23), which bills $0.60 per cluster hour instead of $0.10"
    )


def test_an_existing_cluster_in_standard_support_says_nothing():
    assert check_existing_cluster_version("shared", "1.34", DEC_1_2026) == []
