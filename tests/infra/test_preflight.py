"""The live preflight refuses what the account would refuse, before any resource exists."""

import re
from dataclasses import replace

import pytest

from tests.support import (
    config_file,
    dev_config,
    existing_cluster_config,
    problem_for,
    problems,
    render,
    settings_of,
)
from tools.cli import main
from tools.render.mocks import account as mocked_account

GROUPS = "hyperpod-dpd:cluster.instanceGroups"


def account(monkeypatch: pytest.MonkeyPatch, **answers) -> None:
    monkeypatch.setattr(
        mocked_account, "ACCOUNT", replace(mocked_account.AccountAnswers(), **answers)
    )


def test_a_quota_below_the_instance_count_is_refused_with_the_code_aws_gives(monkeypatch):
    account(monkeypatch, quotas={"ml.p5.48xlarge for cluster usage": 1.0}, quota_code="L-1A2B3C4D")
    (problem,) = problems(dev_config())
    assert problem.startswith(
        f"{GROUPS}[0].instanceCount: the groups on ml.p5.48xlarge (p5-dpd) need 2, but the "
        "account's Service Quotas value of sagemaker 'ml.p5.48xlarge for cluster usage' "
        "(L-1A2B3C4D)"
    )
    assert "--quota-code L-1A2B3C4D --desired-value 2" in problem
    assert "in us-west-2 is 1, shared by all its HyperPod clusters" in problem
    assert "request more in the Service Quotas console" in problem
    assert "aws service-quotas request-service-quota-increase --service-code sagemaker" in problem
    assert "--desired-value 2 --region us-west-2" in problem


def test_groups_of_one_type_count_against_one_quota_together(monkeypatch):
    account(monkeypatch, quotas={"ml.p5.48xlarge for cluster usage": 2.0})
    config = dev_config()
    groups = config["hyperpod-dpd:cluster"]["instanceGroups"]
    groups.append({**groups[0], "name": "p5-more", "instanceCount": 1})
    problem = problem_for(f"{GROUPS}[0].instanceCount", problems(config))
    assert "(p5-dpd, p5-more) need 3" in problem


def test_a_group_on_a_training_plan_needs_no_quota(monkeypatch):
    quotas = {"ml.p5.48xlarge for cluster usage": 0.0, "ml.c5.4xlarge for cluster usage": 1.0}
    account(monkeypatch, quotas=quotas)
    config = dev_config()
    config["hyperpod-dpd:cluster"]["instanceGroups"][0]["trainingPlanArn"] = (
        f"arn:aws:sagemaker:us-west-2:{mocked_account.ACCOUNT_ID}:training-plan/p5-plan"
    )
    assert settings_of(config).stack.cluster.instance_groups[0].training_plan_arn


def test_an_az_id_the_account_does_not_have_is_refused(monkeypatch):
    account(monkeypatch, availability_zones=3)
    config = dev_config()
    config["hyperpod-dpd:network"]["availabilityZoneIds"] = ["usw2-az2", "usw2-az4"]
    (problem,) = problems(config)
    assert problem == (
        "hyperpod-dpd:network.availabilityZoneIds[1]: 'usw2-az4' does not exist in us-west-2 "
        "for this account; its AZ IDs are usw2-az1, usw2-az2, usw2-az3"
    )


def test_an_observability_add_on_newer_than_eks_offers_for_the_version_is_refused(monkeypatch):
    account(monkeypatch, newest_observability_addon="v1.0.5-eksbuild.1")
    config = dev_config()
    config["hyperpod-dpd:observability"] = {"enabled": True, "addonVersion": "v1.1.0-eksbuild.1"}
    (problem,) = problems(config)
    assert problem == (
        "hyperpod-dpd:observability.addonVersion: v1.1.0-eksbuild.1 is not offered for "
        "Kubernetes 1.35; the newest amazon-sagemaker-hyperpod-observability EKS offers for it "
        "is v1.0.5-eksbuild.1 (`aws eks describe-addon-versions --addon-name "
        "amazon-sagemaker-hyperpod-observability --kubernetes-version 1.35` lists them)"
    )


def test_an_observability_add_on_eks_offers_for_the_version_passes(monkeypatch):
    account(monkeypatch, newest_observability_addon="v1.1.0-eksbuild.1")
    config = dev_config()
    config["hyperpod-dpd:observability"] = {"enabled": True, "addonVersion": "v1.1.0-eksbuild.1"}
    assert settings_of(config).stack.observability.addon_version == "v1.1.0-eksbuild.1"


def test_an_existing_cluster_on_an_unsupported_kubernetes_is_refused(monkeypatch):
    account(monkeypatch, eks_version="1.36")
    (problem,) = problems(existing_cluster_config())
    assert problem == (
        "hyperpod-dpd:cluster.existing.eksClusterName: 'shared-hyperpod' runs Kubernetes 1.36, "
        "which is not allowed; SageMaker HyperPod supports 1.30, 1.31, 1.32, 1.33, 1.34, 1.35"
    )


def test_an_existing_cluster_past_eks_extended_support_only_warns(monkeypatch):
    # EKS upgrades such a control plane itself; the stack still manages its endpoints.
    account(monkeypatch, eks_version="1.31")
    result = settings_of(existing_cluster_config())
    assert (
        "hyperpod-dpd:cluster.existing.eksClusterName: 'shared-hyperpod' runs Kubernetes 1.31, "
        "whose EKS extended support ended on 2026-11-26; EKS upgrades its control plane to the "
        "earliest supported version at any time, without notice, and leaves nodes and add-ons "
        "behind: upgrade the cluster first"
    ) in result.warnings


def test_an_existing_cluster_near_the_end_of_standard_support_warns_by_its_own_policy(monkeypatch):
    account(monkeypatch, eks_version="1.34", eks_support_type="STANDARD")
    (warned,) = [w for w in settings_of(existing_cluster_config()).warnings if "1.34" in w]
    assert warned.startswith(
        "hyperpod-dpd:cluster.existing.eksClusterName: 'shared-hyperpod' runs Kubernetes 1.34: "
        "1.34 leaves EKS standard support on 2026-12-02 (tomorrow); with supportType STANDARD "
        "EKS then upgrades the control plane to 1.35 by itself; HyperPod's nodes and the add-ons "
        "stay behind until you update them"
    )


def test_an_existing_cluster_in_eks_extended_support_warns_of_its_cost(monkeypatch):
    account(monkeypatch, eks_version="1.32")
    assert (
        "hyperpod-dpd:cluster.existing.eksClusterName: 'shared-hyperpod' runs Kubernetes 1.32, "
        "in EKS extended support since 2026-03-23 (until 2027-03-23), which bills $0.60 per "
        "cluster hour instead of $0.10"
    ) in settings_of(existing_cluster_config()).warnings


def test_an_existing_hyperpod_cluster_not_in_service_is_refused(monkeypatch):
    account(monkeypatch, hyperpod_status="Failed")
    problem = problem_for(
        "hyperpod-dpd:cluster.existing.hyperpodClusterArn", problems(existing_cluster_config())
    )
    assert problem.endswith("is Failed; endpoints need it InService")


def installed_operator(**installed) -> dict:
    config = existing_cluster_config()
    config["hyperpod-dpd:operator"] = {"installed": installed}
    return config


def test_an_installed_addon_below_the_floor_is_refused(monkeypatch):
    account(monkeypatch, inference_addon_version="v1.2.1-eksbuild.1")
    # The configured version passes the floor; the cluster's does not.
    problem = problem_for(
        "hyperpod-dpd:operator.installed", problems(installed_operator(operatorVersion="3.3"))
    )
    assert problem.startswith(
        "hyperpod-dpd:operator.installed: the amazon-sagemaker-hyperpod-inference add-on in "
        "'shared-hyperpod' is v1.2.1-eksbuild.1, which is not allowed; "
    )
    assert problem.endswith(
        "v1.2.1-eksbuild.1 ships operator 3.1.3; DPD needs operator 3.2 or later, which is "
        "add-on v1.3.0-eksbuild.1 or later"
    )


def test_an_installed_addon_other_than_configured_is_refused(monkeypatch):
    account(monkeypatch, inference_addon_version="v1.4.0-eksbuild.1")
    (problem,) = problems(installed_operator(addonVersion="v1.5.0-eksbuild.1"))
    assert problem == (
        "hyperpod-dpd:operator.installed.addonVersion: 'v1.5.0-eksbuild.1' is not what "
        "'shared-hyperpod' runs; its amazon-sagemaker-hyperpod-inference add-on is "
        "v1.4.0-eksbuild.1 (operator 3.3)"
    )


def test_an_installed_addon_at_the_floor_passes(monkeypatch):
    account(monkeypatch, inference_addon_version="v1.3.0-eksbuild.1")
    assert render(installed_operator(addonVersion="v1.3.0-eksbuild.1")).resources


def test_offline_no_quota_is_checked_and_no_quota_code_is_made_up(tmp_path, capsys):
    # The mocked account knows no quota: a 30-node group renders, and nothing printed or
    # written names a Service Quotas code or ARN.
    config = dev_config()
    config["hyperpod-dpd:cluster"]["instanceGroups"][0]["instanceCount"] = 30
    out = tmp_path / "out"
    assert main(["render", "--config-file", config_file(tmp_path, config), "--out", str(out)]) == 0
    written = capsys.readouterr().out + "".join(
        p.read_text() for p in out.rglob("*") if p.is_file()
    )
    assert not re.search(r"\bL-[0-9A-F]{8}\b|servicequotas", written)


def test_offline_an_existing_clusters_version_is_not_made_up():
    warned = settings_of(existing_cluster_config()).warnings
    assert not [w for w in warned if "runs Kubernetes" in w]


def test_a_quota_refusal_exits_render_with_2_before_any_resource(tmp_path, capsys, monkeypatch):
    account(monkeypatch, quotas={"ml.p5.48xlarge for cluster usage": 16.0})
    config = dev_config()
    config["hyperpod-dpd:cluster"]["instanceGroups"][0]["instanceCount"] = 17
    out = tmp_path / "out"
    assert main(["render", "--config-file", config_file(tmp_path, config), "--out", str(out)]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith(f"{GROUPS}[0].instanceCount: the groups on ml.p5.48xlarge (p5-dpd)")
    assert "Traceback" not in line
    assert not out.exists()


def on_existing_cluster_in(zone: str) -> dict:
    config = existing_cluster_config()
    config["hyperpod-dpd:endpoints"][0]["topologySpec"] = {"availabilityZone": zone}
    return config


TOPOLOGY_AZ = "hyperpod-dpd:endpoints[0].topologySpec.availabilityZone"


@pytest.mark.parametrize("zone", ["usw2-az3", "us-west-2c"])
def test_an_existing_cluster_endpoint_in_an_az_without_its_nodes_is_refused(zone):
    # The mocked cluster's groups sit in subnets of usw2-az1 and usw2-az2.
    problem = problem_for(TOPOLOGY_AZ, problems(on_existing_cluster_in(zone)))
    assert problem == (
        f"{TOPOLOGY_AZ}: {zone!r} holds no node of the existing HyperPod cluster; name one of "
        "us-west-2a (usw2-az1), us-west-2b (usw2-az2)"
    )


@pytest.mark.parametrize("zone", ["usw2-az2", "us-west-2a"])
def test_an_existing_cluster_endpoint_in_an_az_of_its_nodes_renders(zone):
    assert render(on_existing_cluster_in(zone)).resources


def test_without_the_groups_subnets_an_existing_cluster_endpoint_needs_an_az_of_the_account(
    monkeypatch,
):
    # Groups on the cluster's own VpcConfig: DescribeCluster doesn't give CloudFormation it.
    account(monkeypatch, hyperpod_subnet_zones=())
    assert render(on_existing_cluster_in("usw2-az5")).resources
    problem = problem_for(TOPOLOGY_AZ, problems(on_existing_cluster_in("usw2-az9")))
    assert problem.startswith(f"{TOPOLOGY_AZ}: 'usw2-az9' is not an AZ of this account; name one")
