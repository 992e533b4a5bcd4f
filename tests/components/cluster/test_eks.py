"""EksCluster under mocks: pulumi-eks's remote component with HyperPod's requirements."""

import json

import pulumi
import pulumi_aws as aws
import pytest

from components.cluster.eks import (
    AdoptedEksCluster,
    AdoptedEksClusterArgs,
    EksCluster,
    EksClusterArgs,
    delete_control_plane_first,
)
from components.cluster.spec import AddonVersions, EndpointAccess
from components.core.aws_account import AwsAccount
from tests.support import one, run_component

ADMIN = "arn:aws:iam::123456789012:role/platform-admin"
CI = "arn:aws:iam::123456789012:role/github-deploy"


def cluster(**args):
    def build():
        group = aws.ec2.SecurityGroup("efa", vpc_id="vpc-0123456789abcdef0")
        EksCluster(
            "eks",
            EksClusterArgs(
                name="dpd",
                kubernetes_version="1.34",
                vpc_id="vpc-0123456789abcdef0",
                subnet_ids=["subnet-a", "subnet-b"],
                security_group=group,
                **args,
            ),
        )

    return run_component(build)


def test_hyperpod_requirements_on_the_control_plane():
    result = cluster()
    inputs = one(result, "eks:index:Cluster").inputs
    assert inputs["authenticationMode"] == "API_AND_CONFIG_MAP"
    assert inputs["enabledClusterLogTypes"] == [
        "api",
        "audit",
        "authenticator",
        "controllerManager",
        "scheduler",
    ]
    assert inputs["createOidcProvider"] is True
    assert inputs["skipDefaultNodeGroup"] is True
    assert inputs["clusterSecurityGroup"] == one(result, ":SecurityGroup").urn
    assert inputs["privateSubnetIds"] == ["subnet-a", "subnet-b"]
    assert inputs["version"] == "1.34"


def test_the_api_endpoint_is_private_unless_asked_and_public_only_to_the_cidrs_given():
    inputs = one(cluster(), "eks:index:Cluster").inputs
    assert (inputs["endpointPublicAccess"], inputs["endpointPrivateAccess"]) == (False, True)
    access = EndpointAccess(public=True, public_cidrs=["52.94.76.0/22"], private=True)
    inputs = one(cluster(endpoint_access=access), "eks:index:Cluster").inputs
    assert inputs["endpointPublicAccess"] is True
    assert inputs["publicAccessCidrs"] == ["52.94.76.0/22"]


def test_protect_reaches_the_control_plane():
    assert not one(cluster(), "eks:index:Cluster").options.get("protect")
    assert one(cluster(protect=True), "eks:index:Cluster").options["protect"] is True


def test_a_replaced_control_plane_is_deleted_before_its_namesake_is_created():
    assert one(cluster(), "eks:index:Cluster").options["deleteBeforeReplace"] is True

    def transformed(type_: str) -> pulumi.ResourceOptions | None:
        args = pulumi.ResourceTransformArgs(
            True, type_, "eks-eksCluster", {}, pulumi.ResourceOptions()
        )
        result = delete_control_plane_first(args)
        return result.opts if result else None

    assert transformed("aws:eks/cluster:Cluster").delete_before_replace is True
    assert transformed("aws:iam/role:Role") is None


def test_coredns_does_not_wait_for_nodes_that_do_not_exist_yet():
    assert one(cluster(), "eks:index:Cluster").inputs["corednsAddonOptions"] == {"enabled": False}


def test_the_pod_identity_agent_add_on():
    addon = one(cluster(), ":Addon")
    assert addon.inputs == {"clusterName": "dpd", "addonName": "eks-pod-identity-agent"}


def test_pinned_add_on_versions_reach_eks():
    versions = AddonVersions(
        vpc_cni="v1.20.4-eksbuild.1",
        kube_proxy="v1.34.0-eksbuild.2",
        pod_identity_agent="v1.3.8-eksbuild.2",
    )
    result = cluster(addon_versions=versions)
    inputs = one(result, "eks:index:Cluster").inputs
    assert inputs["vpcCniOptions"] == {"addonVersion": "v1.20.4-eksbuild.1"}
    assert inputs["kubeProxyAddonOptions"] == {"version": "v1.34.0-eksbuild.2"}
    assert one(result, ":Addon").inputs["addonVersion"] == "v1.3.8-eksbuild.2"


def test_admin_and_ci_roles_become_cluster_admins():
    entries = one(cluster(admin_role_arns=[ADMIN], ci_role_arns=[CI]), "eks:index:Cluster").inputs[
        "accessEntries"
    ]
    assert {e["principalArn"] for e in entries.values()} == {ADMIN, CI}
    for entry in entries.values():
        (policy,) = entry["accessPolicies"].values()
        assert policy == {
            "policyArn": "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy",
            "accessScope": {"type": "cluster"},
        }


def test_the_kubernetes_provider_uses_the_cluster_kubeconfig():
    provider = one(cluster(), "pulumi:providers:kubernetes")
    assert json.loads(provider.inputs["kubeconfig"])["current-context"] == "dpd"


def test_an_existing_cluster_is_reached_through_aws_eks_get_token():
    args = AdoptedEksClusterArgs(
        name="prod", account=AwsAccount("123456789012", "aws", "us-east-1")
    )
    result = run_component(lambda: AdoptedEksCluster("eks", args))
    assert sorted(r.type for r in result.resources) == [
        "hyperpod-dpd:eks:AdoptedEksCluster",
        "pulumi:providers:kubernetes",
    ]
    kubeconfig = json.loads(one(result, "pulumi:providers:kubernetes").inputs["kubeconfig"])
    (user,) = kubeconfig["users"]
    assert user["user"]["exec"]["args"] == [
        "eks",
        "get-token",
        "--cluster-name",
        "prod",
        "--region",
        "us-east-1",
    ]


@pytest.mark.parametrize("support_type", ["EXTENDED", "STANDARD"])
def test_the_upgrade_policy_is_stated_on_the_control_plane(support_type):
    inputs = one(cluster(support_type=support_type), "eks:index:Cluster").inputs
    assert inputs["upgradePolicy"] == {"supportType": support_type}


def test_the_upgrade_policy_defaults_to_extended():
    inputs = one(cluster(), "eks:index:Cluster").inputs
    assert inputs["upgradePolicy"] == {"supportType": "EXTENDED"}
