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
from tests.components.cluster.checked import cluster_problems, cluster_warnings
from tests.support import dev_config, prod_config

DEC_1_2026 = date(2026, 12, 1)


def test_on_dec_1_2026_a_new_cluster_may_take_1_32_to_1_35():
    assert list(creatable_versions(DEC_1_2026)) == ["1.32", "1.33", "1.34", "1.35"]


def test_a_version_in_standard_support_far_from_its_end_passes():
    assert check_new_cluster_version("1.34", date(2026, 6, 1)) == []


def test_a_version_past_extended_support_is_refused_naming_the_date_and_todays_versions():
    assert check_new_cluster_version("1.31", DEC_1_2026) == [
        Finding(
            "error",
            "kubernetes-version",
            "cluster.kubernetesVersion",
            "'1.31' is not allowed; EKS's extended support for it ended on 2026-11-26, and EKS "
            "creates no cluster on it since. Versions allowed on 2026-12-01: 1.32, 1.33, 1.34, "
            "1.35",
        )
    ]


@pytest.mark.parametrize("version", ["1.28", "1.29", "1.30"])
def test_every_older_version_hyperpod_lists_is_refused_too(version):
    (found,) = check_new_cluster_version(version, DEC_1_2026)
    assert found.level == "error"
    assert found.message.endswith("Versions allowed on 2026-12-01: 1.32, 1.33, 1.34, 1.35")


def test_the_day_before_its_end_the_version_only_warns():
    (found,) = check_new_cluster_version("1.31", date(2026, 11, 25))
    assert found == Finding(
        "warning",
        "eks-extended-support",
        "cluster.kubernetesVersion",
        "1.31 is in EKS extended support since 2025-11-26 (until 2026-11-26), which bills "
        "$0.60 per cluster hour instead of $0.10; in standard support: 1.34, 1.35",
    )


def test_extended_support_warns_without_advice_when_no_version_has_standard_support():
    # 1.35, the newest, leaves standard support on 2027-03-27.
    (found,) = check_new_cluster_version("1.33", date(2027, 4, 1))
    assert found.message == (
        "1.33 is in EKS extended support since 2026-07-29 (until 2027-07-29), which bills "
        "$0.60 per cluster hour instead of $0.10"
    )


def test_once_every_version_has_ended_none_is_allowed():
    (found,) = check_new_cluster_version("1.35", date(2028, 3, 27))
    assert found.message.endswith(
        "ended on 2028-03-27, and EKS creates no cluster on it since. Versions allowed on "
        "2028-03-27: none"
    )


def test_a_version_hyperpod_does_not_support_is_refused_with_todays_versions():
    (found,) = check_new_cluster_version("1.36", DEC_1_2026)
    assert found.message == (
        "'1.36' is not allowed; SageMaker HyperPod supports 1.30, 1.31, 1.32, 1.33, 1.34, "
        "1.35. Versions allowed on 2026-12-01: 1.32, 1.33, 1.34, 1.35"
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


def test_an_existing_cluster_far_from_the_end_of_standard_support_says_nothing():
    assert check_existing_cluster_version("shared", "1.34", date(2026, 6, 1)) == []


def test_an_existing_cluster_near_the_end_of_standard_support_says_what_its_policy_does():
    (found,) = check_existing_cluster_version("shared", "v1.34.2-eks-1", DEC_1_2026, "STANDARD")
    assert found.field == "cluster.existing.eksClusterName"
    assert found.message.startswith(
        "'shared' runs Kubernetes v1.34.2-eks-1: 1.34 leaves EKS standard support on 2026-12-02 "
        "(tomorrow); with supportType STANDARD EKS then upgrades the control plane to 1.35"
    )


# 1.35 leaves standard support on 2027-03-27; the notice starts 60 days before.
@pytest.mark.parametrize(
    ("today", "support_type", "message"),
    [
        (date(2027, 1, 25), "EXTENDED", None),
        (date(2027, 1, 25), "STANDARD", None),
        (
            date(2027, 1, 26),
            "EXTENDED",
            "1.35 leaves EKS standard support on 2027-03-27 (in 60 days); with supportType "
            "EXTENDED the cluster stays on it and EKS bills $0.60 per cluster hour instead of "
            "$0.10, $0.50 more (aws.amazon.com/eks/pricing); SageMaker HyperPod supports no "
            "newer version, so extended support is what keeps the cluster on one it supports",
        ),
        (
            date(2027, 3, 26),
            "STANDARD",
            "1.35 leaves EKS standard support on 2027-03-27 (tomorrow); with supportType "
            "STANDARD EKS then upgrades the control plane to 1.36 by itself, a version "
            "HyperPod refuses (SageMaker HyperPod supports 1.30, 1.31, 1.32, 1.33, 1.34, "
            "1.35); set EXTENDED to stay on 1.35 for $0.60 per cluster hour instead of $0.10, "
            "$0.50 more (aws.amazon.com/eks/pricing)",
        ),
    ],
)
def test_from_60_days_before_standard_support_ends_the_support_type_says_what_follows(
    today, support_type, message
):
    found = check_new_cluster_version("1.35", today, support_type)
    expected = (
        [
            Finding(
                "warning",
                "eks-standard-support-ends",
                "cluster.upgradePolicy.supportType",
                message,
            )
        ]
        if message
        else []
    )
    assert found == expected


def test_with_a_newer_version_hyperpod_supports_the_notice_names_it():
    (extended,) = check_new_cluster_version("1.33", date(2026, 6, 1), "EXTENDED")
    assert extended.message.endswith("; upgrade to 1.34, 1.35 before then to avoid it")
    (standard,) = check_new_cluster_version("1.33", date(2026, 6, 1), "STANDARD")
    assert standard.message.endswith(
        "upgrades the control plane to 1.34 by itself; HyperPod's nodes and the add-ons stay "
        "behind until you update them"
    )


def test_in_extended_support_standard_says_eks_may_upgrade_at_any_time():
    (found,) = check_new_cluster_version("1.33", DEC_1_2026, "STANDARD")
    assert found.message.endswith(
        "with cluster.upgradePolicy.supportType STANDARD, EKS may upgrade it to 1.34 by "
        "itself at any time"
    )


# On the day the tests run (2026-12-01, tests/conftest.py), keyed as the program keys them.


def with_kubernetes(version: str) -> dict:
    config = dev_config()
    config["hyperpod-dpd:cluster"]["kubernetesVersion"] = version
    return config


def test_a_kubernetes_version_hyperpod_does_not_document_is_refused():
    (problem,) = cluster_problems(with_kubernetes("1.36"))
    assert problem == (
        "hyperpod-dpd:cluster.kubernetesVersion: '1.36' is not allowed; SageMaker HyperPod "
        "supports 1.30, 1.31, 1.32, 1.33, 1.34, 1.35. Versions allowed on 2026-12-01: "
        "1.32, 1.33, 1.34, 1.35"
    )


def test_a_kubernetes_version_past_eks_extended_support_is_refused():
    assert cluster_problems(with_kubernetes("1.31")) == [
        "hyperpod-dpd:cluster.kubernetesVersion: '1.31' is not allowed; EKS's extended support "
        "for it ended on 2026-11-26, and EKS creates no cluster on it since. Versions allowed "
        "on 2026-12-01: 1.32, 1.33, 1.34, 1.35"
    ]


def test_a_kubernetes_version_in_eks_extended_support_warns_of_its_cost():
    assert (
        "hyperpod-dpd:cluster.kubernetesVersion: 1.33 is in EKS extended support since "
        "2026-07-29 (until 2027-07-29), which bills $0.60 per cluster hour instead of $0.10; "
        "in standard support: 1.34, 1.35"
    ) in cluster_warnings(with_kubernetes("1.33"))


def test_a_version_in_extended_support_still_passes():
    assert cluster_problems(with_kubernetes("1.33")) == []


@pytest.mark.parametrize("config", [dev_config, prod_config])
def test_the_example_stacks_take_a_version_in_standard_support(config):
    assert not [w for w in cluster_warnings(config()) if "kubernetesVersion" in w]


def test_a_1_34_stack_is_warned_that_it_leaves_standard_support_tomorrow():
    # On 2026-12-01 (tests/conftest.py), the day before 1.34 leaves standard support.
    assert (
        "hyperpod-dpd:cluster.upgradePolicy.supportType: 1.34 leaves EKS standard support on "
        "2026-12-02 (tomorrow); with supportType EXTENDED the cluster stays on it and EKS "
        "bills $0.60 per cluster hour instead of $0.10, $0.50 more (aws.amazon.com/eks/pricing);"
        " upgrade to 1.35 before then to avoid it"
    ) in cluster_warnings(with_kubernetes("1.34"))
