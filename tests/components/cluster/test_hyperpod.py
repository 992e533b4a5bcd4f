"""HyperPodCluster, its dependencies chart and lifecycle scripts, under mocks (preview=False)."""

import json

import pulumi
import pytest

from components.cluster.dependencies import HyperPodDependencies, HyperPodDependenciesArgs
from components.cluster.hyperpod import HyperPodCluster, HyperPodClusterArgs
from components.cluster.lifecycle_scripts import LifecycleScripts, LifecycleScriptsArgs
from components.cluster.spec import InstanceGroupSpec
from components.core.aws_account import AwsAccount
from infra.stack import LIFECYCLE_DIRECTORY
from tests.support import one, run_component, waits_for

GROUPS = [
    InstanceGroupSpec.model_validate(
        {
            "name": "p5",
            "instanceType": "ml.p5.48xlarge",
            "instanceCount": 2,
            "availabilityZoneId": "usw2-az2",
        }
    ),
    InstanceGroupSpec.model_validate(
        {
            "name": "system",
            "instanceType": "ml.c5.4xlarge",
            "instanceCount": 1,
            "availabilityZoneId": "usw2-az3",
        }
    ),
]
SUBNETS = {"usw2-az2": "subnet-0000000000000000a", "usw2-az3": "subnet-0000000000000000b"}
EKS = "arn:aws:eks:us-west-2:123456789012:cluster/dpd"


def cluster(node_autoscaling: bool = False, tiered_storage: bool | None = None):
    def build():
        scripts = LifecycleScripts(
            "scripts", LifecycleScriptsArgs(bucket="sagemaker-dpd", directory=LIFECYCLE_DIRECTORY)
        )
        chart = HyperPodDependencies(
            "deps",
            HyperPodDependenciesArgs(chart_path="charts/HyperPodHelmChart", region="us-west-2"),
        )
        HyperPodCluster(
            "hyperpod",
            HyperPodClusterArgs(
                name="dpd",
                account=AwsAccount("123456789012", "aws", "us-west-2"),
                eks_cluster_arn=EKS,
                vpc_id="vpc-0123456789abcdef0",
                security_group_id="sg-0123456789abcdef0",
                subnet_ids=SUBNETS,
                instance_groups=GROUPS,
                lifecycle_scripts=scripts,
                lifecycle_bucket="sagemaker-dpd",
                node_autoscaling=node_autoscaling,
                tiered_storage=tiered_storage,
            ),
            opts=pulumi.ResourceOptions(depends_on=[chart]),
        )

    return run_component(build)


def test_the_cluster_is_orchestrated_by_eks_with_automatic_recovery_and_continuous_scaling():
    inputs = one(cluster(), "aws-native:sagemaker:Cluster").inputs
    assert inputs["orchestrator"] == {"eks": {"clusterArn": EKS}}
    assert inputs["nodeRecovery"] == "Automatic"
    assert inputs["nodeProvisioningMode"] == "Continuous"
    assert inputs["vpcConfig"] == {
        "securityGroupIds": ["sg-0123456789abcdef0"],
        "subnets": list(SUBNETS.values()),
    }


def test_each_group_is_pinned_to_the_subnet_of_its_az():
    groups = one(cluster(), "aws-native:sagemaker:Cluster").inputs["instanceGroups"]
    assert {g["instanceGroupName"]: g["overrideVpcConfig"]["subnets"] for g in groups} == {
        "p5": ["subnet-0000000000000000a"],
        "system": ["subnet-0000000000000000b"],
    }


def test_groups_run_the_uploaded_lifecycle_scripts_as_the_execution_role():
    result = cluster()
    groups = one(result, "aws-native:sagemaker:Cluster").inputs["instanceGroups"]
    role = one(result, "aws:iam/role:Role")
    objects = [r for r in result.resources if r.type.endswith(":BucketObjectv2")]
    prefix = objects[0].inputs["key"].rsplit("/", 1)[0]
    assert {o.inputs["key"].rsplit("/", 1)[1] for o in objects} == {
        "on_create.sh",
        "move_container_data.sh",
    }
    for group in groups:
        assert group["executionRole"] == f"arn:aws:iam::123456789012:role/{role.id}"
        assert group["lifeCycleConfig"] == {
            "sourceS3Uri": f"s3://sagemaker-dpd/{prefix}",
            "onCreate": "on_create.sh",
        }


def test_nodes_wait_for_their_scripts_role_permissions_and_the_dependencies_chart():
    result = cluster()
    hyperpod = one(result, "aws-native:sagemaker:Cluster")
    for suffix in (":BucketObjectv2", ":RolePolicy", ":RolePolicyAttachment", "v3:Release"):
        for resource in [r for r in result.resources if r.type.endswith(suffix)]:
            assert waits_for(result, hyperpod, resource), resource.name


def test_a_replaced_cluster_is_deleted_before_its_namesake_is_created():
    assert one(cluster(), "aws-native:sagemaker:Cluster").options["deleteBeforeReplace"] is True


def test_creating_p5_capacity_gets_hours_not_minutes():
    options = one(cluster(), "aws-native:sagemaker:Cluster").options
    assert options["customTimeouts"] == {"create": "240m", "update": "240m", "delete": "120m"}


def test_the_execution_role_is_trusted_by_sagemaker_with_the_instance_policy():
    result = cluster()
    trust = json.loads(one(result, "aws:iam/role:Role").inputs["assumeRolePolicy"])
    assert trust["Statement"][0]["Principal"] == {"Service": "sagemaker.amazonaws.com"}
    attached = one(result, ":RolePolicyAttachment").inputs["policyArn"]
    assert attached == "arn:aws:iam::aws:policy/AmazonSageMakerClusterInstanceRolePolicy"
    policy = json.loads(one(result, "aws:iam/rolePolicy:RolePolicy").inputs["policy"])
    resources = json.dumps(policy)
    assert "arn:aws:s3:::sagemaker-dpd/*" in resources
    assert "subnet/subnet-0000000000000000a" in resources and EKS in resources


def test_the_dependencies_chart_is_installed_without_waiting_for_nodes():
    release = one(cluster(), "kubernetes:helm.sh/v3:Release").inputs
    assert release["name"] == "hyperpod-dependencies"
    assert release["namespace"] == "kube-system"
    assert release["values"]["health-monitoring-agent"] == {"region": "us-west-2"}
    assert release["values"]["inferenceOperators"] == {"enabled": False}
    assert release["skipAwait"] is True


@pytest.mark.parametrize(
    ("setting", "written"), [(None, None), (True, {"mode": "Enable"}), (False, {"mode": "Disable"})]
)
def test_tiered_storage_is_written_as_set_or_left_out(setting, written):
    inputs = one(cluster(tiered_storage=setting), "aws-native:sagemaker:Cluster").inputs
    assert inputs.get("tieredStorageConfig") == written


def test_without_node_autoscaling_the_cluster_has_no_autoscaler():
    result = cluster()
    inputs = one(result, "aws-native:sagemaker:Cluster").inputs
    assert "autoScaling" not in inputs and "clusterRole" not in inputs
    assert [g["instanceCount"] for g in inputs["instanceGroups"]] == [2, 1]


def test_node_autoscaling_hands_the_gpu_groups_to_karpenter_with_its_cluster_role():
    result = cluster(node_autoscaling=True)
    hyperpod = one(result, "aws-native:sagemaker:Cluster")
    inputs = hyperpod.inputs
    assert inputs["autoScaling"] == {"mode": "Enable", "autoScalerType": "Karpenter"}
    role = one(result, "aws:iam/role:Role", "hyperpod-autoscaler")
    assert inputs["clusterRole"] == f"arn:aws:iam::123456789012:role/{role.id}"
    (trust,) = json.loads(role.inputs["assumeRolePolicy"])["Statement"]
    assert trust["Principal"] == {"Service": "hyperpod.sagemaker.amazonaws.com"}
    policy = json.loads(
        one(result, "aws:iam/rolePolicy:RolePolicy", "hyperpod-autoscaler").inputs["policy"]
    )
    nodes, kms, _ = policy["Statement"]
    assert nodes["Action"] == [
        "sagemaker:BatchAddClusterNodes",
        "sagemaker:BatchDeleteClusterNodes",
    ]
    assert nodes["Resource"] == "arn:aws:sagemaker:us-west-2:123456789012:cluster/*"
    assert kms["Condition"]["Bool"] == {"kms:GrantIsForAWSResource": "true"}
    # The GPU group starts empty without deep health checks; the system group keeps its count.
    p5, system = inputs["instanceGroups"]
    assert (p5["instanceCount"], "onStartDeepHealthChecks" in p5) == (0, False)
    assert system["instanceCount"] == 1
    # Karpenter's group's count, and the cluster's subnets, a default every group overrides.
    assert hyperpod.options.get("ignoreChanges") == [
        "instanceGroups[0].instanceCount",
        "vpcConfig.subnets",
    ]
    assert waits_for(
        result, hyperpod, one(result, "aws:iam/rolePolicy:RolePolicy", "hyperpod-autoscaler")
    )
