"""The cluster's rules, each refusal naming the key as the program does."""

import pytest

from tests.components.cluster.checked import cluster_problems
from tests.support import (
    GROUPS,
    SYSTEM,
    P,
    dev_with,
    p5_group,
    problem_for,
    with_endpoint_access,
    with_groups,
)

REFUSED = [
    (
        {"cluster.addonVersions": {"kubeProxy": "v1.33.5-eksbuild.2"}},
        "cluster.addonVersions.kubeProxy",
        "runs Kubernetes 1.35",
    ),
    *[
        (
            {
                "cluster.existing": {
                    "eksClusterName": "shared",
                    "hyperpodClusterArn": (
                        "arn:aws:sagemaker:us-west-2:123456789012:cluster/abc123def456"
                    ),
                }
            },
            key,
            "applies to a cluster this stack builds, but cluster.existing adopts one",
        )
        for key in ("network", "cluster.instanceGroups", "cluster.kubernetesVersion")
    ],
    (
        {"operator": {"installed": {"operatorVersion": "3.4"}}},
        "operator.installed",
        "this stack creates the cluster",
    ),
]


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_settings_that_break_each_other_are_refused(changes, key, says):
    assert says in problem_for(f"{P}:{key}", cluster_problems(dev_with(changes)))


def test_a_group_outside_the_network_azs_is_refused():
    found = cluster_problems(with_groups(*[p5_group(availabilityZoneId="usw2-az4"), SYSTEM]))
    assert "usw2-az4 is not one of the network's AZs" in problem_for(
        f"{GROUPS}[0].availabilityZoneId", found
    )


def test_a_public_api_endpoint_open_to_the_world_by_default_is_refused():
    problem = problem_for(
        "hyperpod-dpd:cluster.endpointAccess", cluster_problems(with_endpoint_access(None))
    )
    assert "EKS's default of 0.0.0.0/0 when publicCidrs is unset" in problem
    assert "publicCidrs: [0.0.0.0/0]" in problem


@pytest.mark.parametrize(
    "access, says",
    [
        ({"public": False, "private": False}, "EKS needs one endpoint at least"),
        ({"public": False, "publicCidrs": ["52.94.76.0/22"]}, "drop publicCidrs or set public"),
    ],
)
def test_an_unreachable_or_contradictory_endpoint_is_refused(access, says):
    assert says in problem_for(
        "hyperpod-dpd:cluster.endpointAccess", cluster_problems(with_endpoint_access(access))
    )
