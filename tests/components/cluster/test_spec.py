"""The cluster's settings refused in words, naming the key as the program does."""

import pytest

from tests.components.cluster.checked import cluster_problems
from tests.support import (
    GPU_GROUP,
    GROUPS,
    SYSTEM,
    P,
    dev_config,
    dev_with,
    p5_group,
    problem_for,
    prod_config_as_shipped,
    with_endpoint_access,
    with_groups,
)

REFUSED = [
    ({"cluster.kubernetesVersion": "v1.34"}, "cluster.kubernetesVersion", "such as '1.34'"),
    (
        {"cluster.kubernetesVersion": "1.34.2"},
        "cluster.kubernetesVersion",
        "without 'v' or a patch number",
    ),
    (
        {"cluster.addonVersions": {"coredns": "latest"}},
        "cluster.addonVersions.coredns",
        "v1.34.1-eksbuild.2",
    ),
    (
        {"cluster.addonVersions": {"podIdentityAgent": "1.3.8"}},
        "cluster.addonVersions.podIdentityAgent",
        "EKS add-on version",
    ),
    (
        {f"{GPU_GROUP}.taints": [{"key": "gpu", "value": "", "effect": "PreferNoSchedule"}]},
        f"{GPU_GROUP}.taints[0].value",
        "no empty value",
    ),
    (
        {f"{GPU_GROUP}.taints": [{"key": "bad key", "effect": "PreferNoSchedule"}]},
        f"{GPU_GROUP}.taints[0].key",
        "qualified name",
    ),
    (
        {f"{GPU_GROUP}.taints": [{"key": "k", "value": "a/b", "effect": "PreferNoSchedule"}]},
        f"{GPU_GROUP}.taints[0].value",
        "1 to 63 letters",
    ),
    (
        {
            f"{GPU_GROUP}.taints": [
                {"key": f"k{i}", "effect": "PreferNoSchedule"} for i in range(51)
            ]
        },
        f"{GPU_GROUP}.taints",
        "at most 50 per instance group",
    ),
    ({f"{GPU_GROUP}.labels": {"team": ""}}, f"{GPU_GROUP}.labels.team", "no empty value"),
    (
        {f"{GPU_GROUP}.labels": {f"l{i}": "x" for i in range(51)}},
        f"{GPU_GROUP}.labels",
        "at most 50 per instance group",
    ),
    (
        {"cluster.endpointAccess.publicCidrs": ["10.0.0.0/8"]},
        "cluster.endpointAccess.publicCidrs",
        "public (NAT) addresses, never these",
    ),
    (
        {"cluster.endpointAccess.publicCidrs": ["100.64.0.0/16"]},
        "cluster.endpointAccess.publicCidrs",
        "RFC 6598",
    ),
    (
        {"cluster.endpointAccess.publicCidrs": ["52.94.76.7"]},
        "cluster.endpointAccess.publicCidrs",
        "has no prefix length; write 52.94.76.7/32",
    ),
    (
        {"cluster.endpointAccess.publicCidrs": ["52.94.76.7/22"]},
        "cluster.endpointAccess.publicCidrs",
        "did you mean 52.94.76.0/22?",
    ),
    (
        {"cluster.endpointAccess.publicCidrs": [f"52.94.{i}.0/24" for i in range(41)]},
        "cluster.endpointAccess.publicCidrs",
        "at most 40",
    ),
    (
        {"cluster.endpointAccess.publicCidrs": ["198.51.100.0/24"]},
        "cluster.endpointAccess.publicCidrs",
        "TEST-NET-2",
    ),
    (
        {"cluster.endpointAccess.publicCidrs": ["127.0.0.1/32"]},
        "cluster.endpointAccess.publicCidrs",
        "loopback",
    ),
]


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_a_value_eks_or_hyperpod_would_refuse_is_refused(changes, key, says):
    assert says in problem_for(f"{P}:{key}", cluster_problems(dev_with(changes)))


def test_the_prod_example_as_shipped_is_refused_until_its_placeholder_is_replaced():
    found = cluster_problems(prod_config_as_shipped())
    assert found == [
        "hyperpod-dpd:cluster.endpointAccess.publicCidrs: 203.0.113.0/24 lies in TEST-NET-3 "
        "(203.0.113.0/24), from which no client reaches the API; list the egress ranges of your "
        "deploy runners and VPN"
    ]


def test_instance_counts_start_at_one():
    found = cluster_problems(with_groups(*[p5_group(instanceCount=0), SYSTEM]))
    assert "greater than or equal to 1" in problem_for(f"{GROUPS}[0].instanceCount", found)


def test_a_public_cidr_must_be_an_ipv4_cidr():
    found = cluster_problems(with_endpoint_access({"publicCidrs": ["my-office"]}))
    assert "'my-office' is not an IPv4 CIDR" in problem_for(
        "hyperpod-dpd:cluster.endpointAccess.publicCidrs", found
    )


def test_the_support_type_is_a_choice_of_two():
    config = dev_config()
    config["hyperpod-dpd:cluster"]["upgradePolicy"] = {"supportType": "NONE"}
    (problem,) = cluster_problems(config)
    assert problem.startswith("hyperpod-dpd:cluster.upgradePolicy.supportType: ")
    assert "'STANDARD' or 'EXTENDED'" in problem


REFUSED_IN_WORDS = {
    "an instanceCount beyond HyperPod's": (
        {f"{GPU_GROUP}.instanceCount": 100_000_000},
        "hyperpod-dpd:cluster.instanceGroups[0].instanceCount: 100000000 is not allowed; must be "
        "less than or equal to 6758",
    ),
    "an unquoted Kubernetes version, which YAML reads as a number": (
        {"cluster.kubernetesVersion": 1.3},
        "hyperpod-dpd:cluster.kubernetesVersion: 1.3 is not allowed; must be quoted text such "
        'as "1.35", since YAML reads an unquoted 1.30 as the number 1.3',
    ),
    "a Kubernetes version that holds no version at all": (
        {"cluster.kubernetesVersion": "latest"},
        "hyperpod-dpd:cluster.kubernetesVersion: 'latest' is not allowed; EKS takes a "
        "major.minor version such as '1.35', without 'v' or a patch number",
    ),
    "an instance group name HyperPod refuses": (
        {f"{GPU_GROUP}.name": "p5_dpd"},
        "hyperpod-dpd:cluster.instanceGroups[0].name: 'p5_dpd' is not allowed; must be 1 to 63 "
        "letters, digits or '-', starting and ending with a letter or digit (HyperPod's rule)",
    ),
    # Identifiers AWS and the operator check against a pattern: refused in words, with an
    # example of a value they take, never with the regex.
    "an IAM role named where its ARN goes": (
        {"cluster.adminRoleArns": ["dpd-admins"]},
        "hyperpod-dpd:cluster.adminRoleArns[0]: 'dpd-admins' is not allowed; must be an IAM role "
        "or user ARN such as arn:aws:iam::123456789012:role/name, with no wildcard",
    ),
    "a wildcard role, which no access entry's principal can be": (
        {"cluster.adminRoleArns": ["arn:aws:iam::123456789012:role/*"]},
        "hyperpod-dpd:cluster.adminRoleArns[0]: 'arn:aws:iam::123456789012:role/*' is not "
        "allowed; must be an IAM role or user ARN such as arn:aws:iam::123456789012:role/name, "
        "with no wildcard",
    ),
    "a training plan named where its ARN goes": (
        {f"{GPU_GROUP}.trainingPlanArn": "dpd-plan"},
        "hyperpod-dpd:cluster.instanceGroups[0].trainingPlanArn: 'dpd-plan' is not allowed; must "
        "be a SageMaker training plan ARN such as "
        "arn:aws:sagemaker:us-west-2:123456789012:training-plan/name",
    ),
    "an existing HyperPod cluster named where its ARN goes": (
        {"cluster.existing": {"eksClusterName": "dpd", "hyperpodClusterArn": "dpd"}},
        "hyperpod-dpd:cluster.existing.hyperpodClusterArn: 'dpd' is not allowed; must be a "
        "HyperPod cluster ARN such as arn:aws:sagemaker:us-west-2:123456789012:cluster/"
        "abcdef012345 (its ClusterArn in `aws sagemaker list-clusters`)",
    ),
    "a vpc-cni version without its v": (
        {"cluster.addonVersions": {"vpcCni": "1.19.0"}},
        "hyperpod-dpd:cluster.addonVersions.vpcCni: '1.19.0' is not allowed; must be an EKS "
        "add-on version: v, three numbers and an optional -eksbuild.N, such as v1.19.0-eksbuild.1",
    ),
}


@pytest.mark.parametrize("case", REFUSED_IN_WORDS)
def test_a_refusal_says_what_is_wrong(case):
    changes, line = REFUSED_IN_WORDS[case]
    assert cluster_problems(dev_with(changes)) == [line]


VALID = [
    {
        "cluster.kubernetesVersion": "1.34",
        "cluster.addonVersions": {
            "kubeProxy": "v1.34.1-eksbuild.2",
            "coredns": "v1.12.3-eksbuild.1",
            "podIdentityAgent": "v1.3.8-eksbuild.2",
        },
    },
    {f"{GPU_GROUP}.labels": {"example.com/team": "ml", "tier": "A_1.b"}},
    {"cluster.endpointAccess.publicCidrs": [f"52.94.{i}.0/24" for i in range(40)]},
]


@pytest.mark.parametrize("changes", VALID)
def test_unusual_but_valid_cluster_settings_pass(changes):
    assert cluster_problems(dev_with(changes)) == []
