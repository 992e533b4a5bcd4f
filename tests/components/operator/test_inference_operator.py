"""InferenceOperator under mocks (preview=False): the add-on, its dependencies and roles."""

import json

import pytest

from components.core.aws_account import AwsAccount
from components.operator.inference_operator import InferenceOperator, InferenceOperatorArgs
from components.operator.spec import OperatorSpec
from tests.support import run_component, waits_for

ISSUER = "oidc.eks.us-west-2.amazonaws.com/id/ABC"
PROVIDER = f"arn:aws:iam::123456789012:oidc-provider/{ISSUER}"
HYPERPOD = "arn:aws:sagemaker:us-west-2:123456789012:cluster/abc123def456"


KEY = "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def operator(kms_key_arn: str | None = None, **spec):
    args = InferenceOperatorArgs(
        spec=OperatorSpec.model_validate(spec),
        cluster_name="dpd",
        eks_cluster="dpd",
        account=AwsAccount("123456789012", "aws", "us-west-2"),
        oidc_provider_arn=PROVIDER,
        oidc_issuer=ISSUER,
        hyperpod_cluster_arn=HYPERPOD,
        tls_bucket="hyperpod-tls-dpd",
        model_buckets=["dpd-models"],
        endpoint_namespaces=["default", "inference"],
        kms_key_arn=kms_key_arn,
    )
    return run_component(lambda: InferenceOperator("inference-operator", args))


@pytest.fixture(scope="module")
def installed():
    return operator()


def addons(result) -> dict:
    return {r.inputs["addonName"]: r for r in result.resources if r.type == "aws:eks/addon:Addon"}


def roles(result) -> dict:
    return {
        r.name.removeprefix("inference-operator-"): r
        for r in result.resources
        if r.type == "aws:iam/role:Role"
    }


def test_the_operator_add_on_at_the_configured_version(installed):
    addon = addons(installed)["amazon-sagemaker-hyperpod-inference"]
    assert addon.inputs["addonVersion"] == "v1.5.0-eksbuild.1"
    assert addon.inputs["clusterName"] == "dpd"


def test_the_add_on_is_tagged_with_the_operator_it_ships(installed):
    addon = addons(installed)["amazon-sagemaker-hyperpod-inference"]
    assert addon.inputs["tags"] == {"hyperpod-dpd/operator-version": "3.4"}


def test_a_newer_add_on_is_tagged_with_the_operator_the_settings_name():
    result = operator(addonVersion="v1.6.0-eksbuild.1", operatorVersion="3.5")
    addon = addons(result)["amazon-sagemaker-hyperpod-inference"]
    assert addon.inputs["tags"] == {"hyperpod-dpd/operator-version": "3.5"}


def test_the_configuration_values_name_the_roles_bucket_and_cluster(installed):
    addon = addons(installed)["amazon-sagemaker-hyperpod-inference"]
    values = json.loads(addon.inputs["configurationValues"])
    role_ids = {
        purpose: f"arn:aws:iam::123456789012:role/{r.id}" for purpose, r in roles(installed).items()
    }
    assert values["executionRoleArn"] == role_ids["execution"]
    assert values["executionRoleArn"].endswith(":role/SageMakerHyperPodInference-dpd")
    assert values["tlsCertificateS3Bucket"] == "hyperpod-tls-dpd"
    assert values["hyperpodClusterArn"] == HYPERPOD
    assert values["alb"]["serviceAccount"]["roleArn"] == role_ids["load-balancer-controller"]
    assert values["keda"]["auth"]["aws"]["irsa"]["roleArn"] == role_ids["keda"]


def test_every_dependency_add_on_at_its_floor_with_its_driver_role(installed):
    found = addons(installed)
    assert {
        name: a.inputs["addonVersion"]
        for name, a in found.items()
        if name != "amazon-sagemaker-hyperpod-inference"
    } == {
        "aws-mountpoint-s3-csi-driver": "v1.14.1-eksbuild.1",
        "aws-fsx-csi-driver": "v1.6.0-eksbuild.1",
        "metrics-server": "v0.7.2-eksbuild.4",
        "cert-manager": "v1.18.2-eksbuild.2",
    }
    role_ids = {purpose: r.id for purpose, r in roles(installed).items()}
    assert (
        found["aws-mountpoint-s3-csi-driver"]
        .inputs["serviceAccountRoleArn"]
        .endswith(role_ids["s3-csi-driver"])
    )
    assert (
        found["aws-fsx-csi-driver"]
        .inputs["serviceAccountRoleArn"]
        .endswith(role_ids["fsx-csi-driver"])
    )


@pytest.mark.parametrize(
    "purpose, service_account",
    [
        ("execution", "hyperpod-inference-system:hyperpod-inference-controller-manager"),
        ("load-balancer-controller", "hyperpod-inference-system:aws-load-balancer-controller"),
        ("keda", "hyperpod-inference-system:keda-operator"),
        ("s3-csi-driver", "kube-system:s3-csi-driver-sa"),
        ("fsx-csi-driver", "kube-system:fsx-csi-controller-sa"),
    ],
)
def test_every_role_trusts_its_service_account(installed, purpose, service_account):
    trust = json.loads(roles(installed)[purpose].inputs["assumeRolePolicy"])
    condition = trust["Statement"][0]["Condition"]["StringEquals"]
    assert condition == {
        f"{ISSUER}:sub": f"system:serviceaccount:{service_account}",
        f"{ISSUER}:aud": "sts.amazonaws.com",
    }


def test_the_execution_role_is_also_trusted_by_sagemaker_with_the_inference_policy(installed):
    trust = json.loads(roles(installed)["execution"].inputs["assumeRolePolicy"])
    assert trust["Statement"][1]["Principal"] == {"Service": "sagemaker.amazonaws.com"}
    assert trust["Statement"][1]["Condition"] == {
        "StringEquals": {"aws:SourceAccount": "123456789012"}
    }
    attached = {
        r.inputs["policyArn"]
        for r in installed.resources
        if r.type.endswith(":RolePolicyAttachment")
    }
    assert "arn:aws:iam::aws:policy/AmazonSageMakerHyperPodInferenceAccess" in attached


def inline_policy(result, purpose: str) -> dict:
    (policy,) = [
        json.loads(r.inputs["policy"])
        for r in result.resources
        if r.type == "aws:iam/rolePolicy:RolePolicy" and r.inputs["name"] == purpose
    ]
    return policy


def test_the_s3_csi_role_reads_only_the_model_bucket(installed):
    policy = inline_policy(installed, "s3-csi-driver")
    assert {json.dumps(s["Resource"]) for s in policy["Statement"]} == {
        '["arn:aws:s3:::dpd-models"]',
        '["arn:aws:s3:::dpd-models/*"]',
    }


def test_the_add_on_waits_for_its_dependencies_and_role_policies(installed):
    addon = addons(installed)["amazon-sagemaker-hyperpod-inference"]
    for name, dependency in addons(installed).items():
        if dependency is not addon:
            assert waits_for(installed, addon, dependency), name
    for policy in [r for r in installed.resources if r.type.startswith("aws:iam/rolePolicy")]:
        assert waits_for(installed, addon, policy), policy.name


def test_the_add_on_gets_time_to_become_active_on_p5(installed):
    addon = addons(installed)["amazon-sagemaker-hyperpod-inference"]
    assert addon.options["customTimeouts"] == {"create": "90m", "update": "90m", "delete": "40m"}


def test_with_a_bucket_key_the_operator_and_s3_driver_may_use_it():
    result = operator(kms_key_arn=KEY)
    (tls,) = inline_policy(result, "execution")["Statement"]
    assert (tls["Action"], tls["Resource"]) == (["kms:Decrypt", "kms:GenerateDataKey"], KEY)
    s3_key = inline_policy(result, "s3-csi-driver")["Statement"][-1]
    assert (s3_key["Action"], s3_key["Resource"]) == (["kms:Decrypt"], KEY)
    assert "execution" not in {
        r.inputs["name"] for r in installed_policies(operator()) if "name" in r.inputs
    }


def installed_policies(result) -> list:
    return [r for r in result.resources if r.type == "aws:iam/rolePolicy:RolePolicy"]


def test_the_fsx_driver_role_has_no_managed_full_access(installed):
    attached = {
        r.inputs["policyArn"]
        for r in installed.resources
        if r.type.endswith(":RolePolicyAttachment")
    }
    assert not any("FSx" in arn for arn in attached)
    assert inline_policy(installed, "fsx-csi-driver")["Statement"][0]["Action"] == [
        "fsx:DescribeFileSystems"
    ]


def test_the_gated_model_role_only_when_asked():
    assert "gated-models" not in roles(operator())
    result = operator(gatedModels=True)
    addon = addons(result)["amazon-sagemaker-hyperpod-inference"]
    values = json.loads(addon.inputs["configurationValues"])
    assert values["jumpstartGatedModelDownloadRoleArn"].endswith(roles(result)["gated-models"].id)
    trust = json.loads(roles(result)["gated-models"].inputs["assumeRolePolicy"])
    assert trust["Statement"][0]["Condition"]["StringLike"] == {
        f"{ISSUER}:sub": [
            "system:serviceaccount:default:hyperpod-inference-service-account*",
            "system:serviceaccount:inference:hyperpod-inference-service-account*",
        ]
    }
