"""The stack is held to its region and account: HyperPod's offer, AZ IDs and ARNs there."""

from typing import Any

import pytest

from tests.support import (
    dev_config,
    dev_endpoint,
    endpoint_configs,
    existing_cluster_config,
    problem_for,
    problems,
    render,
    with_endpoints,
)
from tools.render.mocks.account import ACCOUNT_ID

GROUPS = "hyperpod-dpd:cluster.instanceGroups"


def in_region(region: str, **keys: Any) -> dict:
    config = dev_config()
    config["aws:region"] = region
    config.update(keys)
    return config


def test_a_region_that_does_not_exist_is_refused():
    found = problems(in_region("us-west-9"))
    problem = problem_for("aws:region", found)
    assert "'us-west-9' is not an AWS region" in problem
    assert "us-east-1" in problem


def test_a_region_without_hyperpod_is_refused():
    problem = problem_for("aws:region", problems(in_region("af-south-1")))
    assert "HyperPod is not offered in af-south-1" in problem
    assert "us-west-2" in problem


def test_a_gpu_type_the_region_does_not_offer_is_refused_naming_where_it_is():
    config = in_region("eu-west-1")
    config["hyperpod-dpd:network"]["availabilityZoneIds"] = ["euw1-az1", "euw1-az2"]
    for group in config["hyperpod-dpd:cluster"]["instanceGroups"]:
        group["availabilityZoneId"] = "euw1-az1"
        group["instanceType"] = group["instanceType"].replace("p5.", "p6-b300.")
    config["hyperpod-dpd:endpoints"][0]["instanceType"] = "ml.p6-b300.48xlarge"
    found = problems(config)
    for key in (f"{GROUPS}[0].instanceType", "hyperpod-dpd:endpoints[0].instanceType"):
        problem = problem_for(key, found)
        assert "'ml.p6-b300.48xlarge' is not offered for HyperPod in eu-west-1" in problem
        assert problem.endswith("ap-south-2, ap-southeast-3, us-east-1, us-west-2")


def test_a_cpu_type_the_region_does_not_offer_is_refused():
    config = dev_config()
    config["hyperpod-dpd:cluster"]["instanceGroups"][1]["instanceType"] = "ml.m6i.4xlarge"
    problem = problem_for(f"{GROUPS}[1].instanceType", problems(config))
    assert "'ml.m6i.4xlarge' is not offered for HyperPod in us-west-2" in problem
    assert "the regions that offer it: ap-northeast-1," in problem


def test_p5e_is_refused_everywhere():
    config = dev_config()
    config["hyperpod-dpd:cluster"]["instanceGroups"][0]["instanceType"] = "ml.p5e.48xlarge"
    config["hyperpod-dpd:endpoints"][0]["instanceType"] = "ml.p5e.48xlarge"
    problem = problem_for(f"{GROUPS}[0].instanceType", problems(config))
    assert problem.endswith("no region offers it for HyperPod")


def test_an_az_id_of_another_region_is_refused():
    config = dev_config()
    config["hyperpod-dpd:network"]["availabilityZoneIds"] = ["usw2-az2", "use1-az3"]
    problem = problem_for("hyperpod-dpd:network.availabilityZoneIds[1]", problems(config))
    assert problem == (
        "hyperpod-dpd:network.availabilityZoneIds[1]: 'use1-az3' is an AZ ID of us-east-1; "
        "the stack deploys to us-west-2, whose AZ IDs are usw2-az<n>"
    )


def test_an_az_id_of_no_region_is_refused():
    config = dev_config()
    config["hyperpod-dpd:network"]["availabilityZoneIds"] = ["usw2-az2", "usx2-az2"]
    problem = problem_for("hyperpod-dpd:network.availabilityZoneIds[1]", problems(config))
    assert "'usx2-az2' is not an AZ ID of any region HyperPod is offered in" in problem


def test_an_arn_of_another_region_is_refused():
    config = dev_config()
    config["hyperpod-dpd:buckets"] = {"kmsKeyArn": f"arn:aws:kms:us-east-1:{ACCOUNT_ID}:key/k"}
    config["hyperpod-dpd:cluster"]["instanceGroups"][0]["trainingPlanArn"] = (
        f"arn:aws:sagemaker:eu-west-1:{ACCOUNT_ID}:training-plan/tp"
    )
    found = problems(config)
    assert (
        "is in region us-east-1; it must be in the region the stack deploys to, us-west-2"
        in problem_for("hyperpod-dpd:buckets.kmsKeyArn", found)
    )
    assert "is in region eu-west-1" in problem_for(f"{GROUPS}[0].trainingPlanArn", found)


def test_an_arn_of_another_account_is_refused():
    config = existing_cluster_config()
    existing = config["hyperpod-dpd:cluster"]["existing"]
    existing["hyperpodClusterArn"] = "arn:aws:sagemaker:us-west-2:210987654321:cluster/abc123"
    problem = problem_for("hyperpod-dpd:cluster.existing.hyperpodClusterArn", problems(config))
    assert (
        f"is in account 210987654321; it must be in the account the stack deploys to, {ACCOUNT_ID}"
        in problem
    )


@pytest.mark.parametrize(
    ("arn", "says"),
    [
        (f"arn:aws:acm:us-east-1:{ACCOUNT_ID}:certificate/0a1b", "is in region us-east-1"),
        ("arn:aws:acm:us-west-2:210987654321:certificate/0a1b", "is in account 210987654321"),
    ],
)
def test_a_custom_certificate_of_another_region_or_account_is_refused(arn, says):
    endpoint = dev_endpoint()
    endpoint["tlsConfig"] = {
        "customCertificateConfig": {"acmArn": arn, "domainName": "chat.example.com"}
    }
    key = "hyperpod-dpd:endpoints[0].tlsConfig.customCertificateConfig.acmArn"
    assert says in problem_for(key, problems(with_endpoints(endpoint)))


def test_a_custom_certificate_of_the_stack_reaches_the_manifest():
    endpoint = dev_endpoint()
    certificate = {
        "acmArn": f"arn:aws:acm:us-west-2:{ACCOUNT_ID}:certificate/0a1b",
        "domainName": "chat.example.com",
    }
    endpoint["tlsConfig"] = {"customCertificateConfig": certificate}
    (config,) = endpoint_configs(render(with_endpoints(endpoint)))
    assert config["spec"]["tlsConfig"] == {"customCertificateConfig": certificate}


@pytest.mark.parametrize(
    ("arn", "says"),
    [
        (f"arn:aws:aps:us-east-1:{ACCOUNT_ID}:workspace/ws-0a1b", "is in region us-east-1"),
        ("arn:aws:aps:us-west-2:210987654321:workspace/ws-0a1b", "is in account 210987654321"),
    ],
)
def test_a_prometheus_workspace_of_another_region_or_account_is_refused(arn, says):
    # Held like every other ARN the stack names: the stack grants its roles that workspace
    # and signs its queries for the stack's region.
    config = dev_config()
    config["hyperpod-dpd:observability"] = {"enabled": True, "prometheusWorkspaceArn": arn}
    key = "hyperpod-dpd:observability.prometheusWorkspaceArn"
    assert says in problem_for(key, problems(config))
