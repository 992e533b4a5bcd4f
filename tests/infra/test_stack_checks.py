"""The network, cluster and bucket settings are refused before deploy, naming the key."""

from datetime import date
from typing import Any

import pytest

from infra import clock
from tests.support import (
    dev_config,
    dev_endpoint,
    endpoint_configs,
    problem_for,
    problems,
    prod_config,
    render,
    with_endpoints,
)

GROUPS = "hyperpod-dpd:cluster.instanceGroups"


def changed(network: dict | None = None, groups: list | None = None, **keys: Any) -> dict:
    config = dev_config()
    if network is not None:
        config["hyperpod-dpd:network"] |= network
    if groups is not None:
        config["hyperpod-dpd:cluster"]["instanceGroups"] = groups
    config.update(keys)
    return config


def gpu_group(**changes: Any) -> dict:
    return {
        "name": "p5-dpd",
        "instanceType": "ml.p5.48xlarge",
        "instanceCount": 2,
        "availabilityZoneId": "usw2-az2",
        **changes,
    }


SYSTEM = {
    "name": "system",
    "instanceType": "ml.c5.4xlarge",
    "instanceCount": 1,
    "availabilityZoneId": "usw2-az2",
}


def test_a_gpu_group_outside_the_dpd_types_is_refused():
    found = problems(
        changed(groups=[gpu_group(), gpu_group(name="g5", instanceType="ml.g5.48xlarge"), SYSTEM])
    )
    assert "'ml.g5.48xlarge' is not allowed; GPU groups run DPD" in problem_for(
        f"{GROUPS}[1].instanceType", found
    )


def test_a_missing_system_group_is_refused():
    assert "has no CPU system group" in problem_for(GROUPS, problems(changed(groups=[gpu_group()])))


def test_a_too_small_system_group_is_refused():
    small = {**SYSTEM, "instanceType": "ml.c5.2xlarge"}
    found = problems(changed(groups=[gpu_group(), small]))
    assert "too small for the system group" in problem_for(f"{GROUPS}[1].instanceType", found)


def test_instance_counts_start_at_one():
    found = problems(changed(groups=[gpu_group(instanceCount=0), SYSTEM]))
    assert "greater than or equal to 1" in problem_for(f"{GROUPS}[0].instanceCount", found)


def test_an_endpoint_needs_its_instance_type_as_a_group():
    found = problems(changed(groups=[gpu_group(instanceType="ml.p5en.48xlarge"), SYSTEM]))
    assert problem_for(GROUPS, found).endswith(
        "no instance group has ml.p5.48xlarge: add one, or change the endpoint's instanceType"
    )


def test_an_endpoint_needs_nodes_for_its_prefill_and_decode_replicas_in_one_az():
    endpoint = {**dev_endpoint(), "prefill": {"replicas": 2}}
    split = [
        gpu_group(instanceCount=2),
        gpu_group(name="p5-b", instanceCount=1, availabilityZoneId="usw2-az3"),
        SYSTEM,
    ]
    found = problems(with_endpoints(endpoint) | {"hyperpod-dpd:cluster": {"instanceGroups": split}})
    # The message names the key to raise (issue 20), not the endpoint's instanceType.
    assert problem_for(f"{GROUPS}[0].instanceCount", found) == (
        f"{GROUPS}[0].instanceCount: endpoints[0] (dpd-test) needs 3 ml.p5.48xlarge nodes in "
        "one AZ for 2 prefill x 8 GPUs and 1 decode x 8 GPUs (prefill and decode share an AZ); "
        "usw2-az2 has 2, the most (cluster.instanceGroups[0]); raise its "
        "instanceCount by 1"
    )


def test_endpoints_sharing_a_type_must_fit_its_nodes_together():
    other = {**dev_endpoint(), "name": "other"}
    found = problems(with_endpoints(dev_endpoint(), other, gpu_nodes=3))
    assert "need 4 nodes together; the groups have 3" in problem_for(
        f"{GROUPS}[0].instanceCount", found
    )


# An endpoint pinned to an AZ: by ID or by name, one of the stack's, rendered as the name.


def pinned(zone: str, **config: Any) -> dict:
    endpoint = {**dev_endpoint(), "topologySpec": {"availabilityZone": zone}}
    return with_endpoints(endpoint, **config)


TOPOLOGY = "hyperpod-dpd:endpoints[0].topologySpec.availabilityZone"


@pytest.mark.parametrize(
    ("zone", "says"),
    [
        ("usw2-az1", "usw2-az1 is not one of the stack's AZs (usw2-az2, usw2-az3)"),
        ("euw1-az1", "'euw1-az1' is an AZ ID of eu-west-1; the stack deploys to us-west-2"),
        ("eu-west-1a", "'eu-west-1a' is an AZ name of eu-west-1; the stack deploys to us-west-2"),
        ("us-west-2a", "'us-west-2a' is usw2-az1 in this account, which is not one of the stack"),
        ("us-west-2z", "'us-west-2z' is not an AZ of this account; its AZs are us-west-2a"),
        ("zone-b", "'zone-b' is neither an AZ ID (usw2-az2) nor an AZ name (us-west-2b)"),
    ],
)
def test_an_endpoint_az_outside_the_stack_is_refused_naming_the_key(zone, says):
    found = problems(pinned(zone))
    assert all(problem.startswith(f"{TOPOLOGY}: ") for problem in found)
    assert any(says in problem for problem in found)


@pytest.mark.parametrize("zone", ["usw2-az2", "us-west-2b"])
def test_an_endpoint_az_is_rendered_as_the_name_node_labels_carry(zone):
    # The mocked account names usw2-az2 us-west-2b (tools/render/mocks.py).
    (endpoint,) = endpoint_configs(render(pinned(zone)))
    assert endpoint["spec"]["pdSpec"]["topologySpec"] == {
        "sameAZ": True,
        "availabilityZone": "us-west-2b",
    }


def test_an_endpoint_pinned_to_an_az_counts_that_azs_nodes():
    groups = [gpu_group(), gpu_group(name="p5-b", availabilityZoneId="usw2-az3"), SYSTEM]
    endpoint = {
        **dev_endpoint(),
        "prefill": {"replicas": 2},
        "topologySpec": {"availabilityZone": "usw2-az3"},
    }
    config = with_endpoints(endpoint)
    config["hyperpod-dpd:cluster"]["instanceGroups"] = groups
    assert problem_for(f"{GROUPS}[1].instanceCount", problems(config)).endswith(
        "endpoints[0].topologySpec.availabilityZone pins its pods to usw2-az3, which has 2 "
        "(cluster.instanceGroups[1]); raise its instanceCount by 1"
    )


def test_a_group_outside_the_network_azs_is_refused():
    found = problems(changed(groups=[gpu_group(availabilityZoneId="usw2-az4"), SYSTEM]))
    assert "usw2-az4 is not one of the network's AZs" in problem_for(
        f"{GROUPS}[0].availabilityZoneId", found
    )


def test_the_network_needs_two_azs():
    found = problems(changed(network={"availabilityZoneIds": ["usw2-az2"]}))
    assert "EKS needs two or more distinct AZ IDs" in problem_for(
        "hyperpod-dpd:network.availabilityZoneIds", found
    )


def test_a_subnet_too_small_for_its_nodes_is_refused():
    found = problems(changed(network={"privateSubnetCidrs": {"usw2-az2": "10.0.0.0/24"}}))
    assert problem_for("hyperpod-dpd:network.privateSubnetCidrs.usw2-az2", found).endswith(
        "10.0.0.0/24 holds 0 nodes, but the instance groups put 3 in usw2-az2 (about 81 "
        "addresses a node, a /21 per 16 nodes)"
    )


def test_overlapping_subnets_are_refused():
    cidrs = {"usw2-az2": "10.0.0.0/21", "usw2-az3": "10.0.4.0/22"}
    found = problems(changed(network={"privateSubnetCidrs": cidrs}))
    assert "10.0.4.0/22 overlaps 10.0.0.0/21 of usw2-az2" in problem_for(
        "hyperpod-dpd:network.privateSubnetCidrs.usw2-az3", found
    )


def test_a_subnet_outside_the_vpc_is_refused():
    found = problems(changed(network={"privateSubnetCidrs": {"usw2-az2": "10.9.0.0/21"}}))
    assert "is not inside vpcCidr 10.0.0.0/16" in problem_for(
        "hyperpod-dpd:network.privateSubnetCidrs.usw2-az2", found
    )


def test_a_vpc_too_small_for_the_subnets_is_refused():
    found = problems(changed(network={"vpcCidr": "10.0.0.0/22"}))
    assert "10.0.0.0/22 is smaller than the /21" in problem_for(
        "hyperpod-dpd:network.vpcCidr", found
    )


def test_the_network_is_required_to_build_a_cluster():
    config = dev_config()
    del config["hyperpod-dpd:network"]
    assert problems(config) == [
        "hyperpod-dpd:network: is required unless cluster.existing names a cluster"
    ]


@pytest.mark.parametrize(
    "role, name, prefix",
    [("lifecycle", "my-scripts", "sagemaker-"), ("tls", "my-certs", "hyperpod-tls")],
)
def test_buckets_keep_the_prefix_their_managed_policy_grants(role, name, prefix):
    found = problems(changed(**{"hyperpod-dpd:buckets": {role: {"name": name}}}))
    assert f"it must start with '{prefix}'" in problem_for(
        f"hyperpod-dpd:buckets.{role}.name", found
    )


def test_a_kubernetes_version_hyperpod_does_not_document_is_refused():
    (problem,) = problems(with_kubernetes("1.36"))
    assert problem == (
        "hyperpod-dpd:cluster.kubernetesVersion: '1.36' is not allowed; SageMaker HyperPod "
        "supports 1.30, 1.31, 1.32, 1.33, 1.34, 1.35. Versions allowed on 2026-12-01: "
        "1.32, 1.33, 1.34, 1.35"
    )


def with_kubernetes(version: str) -> dict:
    config = dev_config()
    config["hyperpod-dpd:cluster"]["kubernetesVersion"] = version
    return config


def test_a_kubernetes_version_past_eks_extended_support_is_refused():
    # The tests run on 2026-12-01 (tests/conftest.py).
    assert problems(with_kubernetes("1.31")) == [
        "hyperpod-dpd:cluster.kubernetesVersion: '1.31' is not allowed; EKS's extended support "
        "for it ended on 2026-11-26, and EKS creates no cluster on it since. Versions allowed "
        "on 2026-12-01: 1.32, 1.33, 1.34, 1.35"
    ]


def test_a_kubernetes_version_in_eks_extended_support_warns_of_its_cost():
    assert (
        "hyperpod-dpd:cluster.kubernetesVersion: 1.33 is in EKS extended support since "
        "2026-07-29 (until 2027-07-29), which bills $0.60 per cluster hour instead of $0.10; "
        "in standard support: 1.34, 1.35"
    ) in render(with_kubernetes("1.33")).warnings


@pytest.mark.parametrize("stack, config", [("dev", dev_config), ("prod", prod_config)])
def test_the_example_stacks_take_a_version_in_standard_support(stack, config):
    result = render(config(), stack=stack)
    assert not [w for w in result.warnings if "kubernetesVersion" in w]


def test_the_day_the_program_runs_decides(monkeypatch):
    monkeypatch.setattr(clock, "utc_today", lambda: date(2028, 3, 27))
    (problem,) = problems(dev_config())
    assert problem.startswith(
        "hyperpod-dpd:cluster.kubernetesVersion: '1.35' is not allowed; EKS's extended support "
        "for it ended on 2028-03-27"
    )


def test_the_region_is_required():
    config = dev_config()
    del config["aws:region"]
    assert problems(config) == [
        "aws:region: is required, e.g. `pulumi config set aws:region us-west-2`"
    ]


def with_endpoint_access(access: dict | None) -> dict:
    config = dev_config()
    cluster = config["hyperpod-dpd:cluster"]
    if access is None:
        del cluster["endpointAccess"]
    else:
        cluster["endpointAccess"] = access
    return config


def test_a_public_api_endpoint_open_to_the_world_by_default_is_refused():
    problem = problem_for(
        "hyperpod-dpd:cluster.endpointAccess", problems(with_endpoint_access(None))
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
        "hyperpod-dpd:cluster.endpointAccess", problems(with_endpoint_access(access))
    )


def test_a_public_cidr_must_be_an_ipv4_cidr():
    found = problems(with_endpoint_access({"publicCidrs": ["my-office"]}))
    assert "'my-office' is not an IPv4 CIDR" in problem_for(
        "hyperpod-dpd:cluster.endpointAccess.publicCidrs", found
    )


def test_the_render_warns_a_1_34_stack_that_it_leaves_standard_support_tomorrow():
    # On 2026-12-01 (tests/conftest.py), the day before 1.34 leaves standard support.
    assert (
        "hyperpod-dpd:cluster.upgradePolicy.supportType: 1.34 leaves EKS standard support on "
        "2026-12-02 (tomorrow); with supportType EXTENDED the cluster stays on it and EKS "
        "bills $0.60 per cluster hour instead of $0.10, $0.50 more (aws.amazon.com/eks/pricing);"
        " upgrade to 1.35 before then to avoid it"
    ) in render(with_kubernetes("1.34")).warnings


def test_the_support_type_is_a_choice_of_two():
    config = dev_config()
    config["hyperpod-dpd:cluster"]["upgradePolicy"] = {"supportType": "NONE"}
    (problem,) = problems(config)
    assert problem.startswith("hyperpod-dpd:cluster.upgradePolicy.supportType: ")
    assert "'STANDARD' or 'EXTENDED'" in problem
