"""Observability under mocks (preview=False): the workspace, the add-on, its role, association."""

import json

import pulumi
import pytest

from components.core.aws_account import AwsAccount
from components.observability.observability import Observability, ObservabilityArgs
from components.observability.spec import ObservabilitySpec
from infra.offline.render import run_program
from infra.offline.stack_config import to_stack_config
from tests.support import one, waits_for

ACCOUNT = AwsAccount("123456789012", "aws", "us-west-2")
ADOPTED = "arn:aws:aps:us-west-2:123456789012:workspace/ws-0a1b2c3d-1111-2222-3333-444455556666"


def observability(**spec):
    def build():
        nodes = pulumi.CustomResource("test:index:Nodes", "nodes")
        component = Observability(
            "observability",
            ObservabilityArgs(
                spec=ObservabilitySpec.model_validate({"enabled": True, **spec}),
                cluster_name="dpd",
                account=ACCOUNT,
            ),
            opts=pulumi.ResourceOptions(depends_on=[nodes]),
        )
        pulumi.export("endpoint", component.prometheus_endpoint)
        pulumi.export("grafana", component.grafana_url)

    # The mocks answer in the stack's region.
    return run_program("test", to_stack_config({"aws:region": "us-west-2"}), build)


@pytest.fixture(scope="module")
def created():
    return observability()


def test_a_new_workspace_and_the_add_on_writing_to_it(created):
    workspace = one(created, "aws:amp/workspace:Workspace")
    addon = one(created, "aws:eks/addon:Addon")
    assert addon.inputs["addonName"] == "amazon-sagemaker-hyperpod-observability"
    assert addon.inputs["addonVersion"] == "v1.0.5-eksbuild.1"
    assert addon.inputs["clusterName"] == "dpd"
    arn = f"arn:aws:aps:us-west-2:123456789012:workspace/{workspace.id}"
    endpoint = f"https://aps-workspaces.us-west-2.amazonaws.com/workspaces/{workspace.id}"
    assert json.loads(addon.inputs["configurationValues"]) == {
        "ampWorkspace": {"prometheusEndpoint": endpoint, "arn": arn},
        "metricsProvider": {"inferenceMetrics": {"level": "BASIC", "scrapeInterval": 30}},
    }
    assert created.outputs["endpoint"] == endpoint
    assert created.outputs.get("grafana") is None


def test_the_collector_role_is_bound_by_the_add_on_association(created):
    addon = one(created, "aws:eks/addon:Addon")
    role = one(created, "aws:iam/role:Role")
    assert addon.inputs["podIdentityAssociations"] == [
        {
            "roleArn": f"arn:aws:iam::123456789012:role/{role.id}",
            "serviceAccount": "hyperpod-observability-operator-otel-collector",
        }
    ]
    (statement,) = json.loads(role.inputs["assumeRolePolicy"])["Statement"]
    assert statement["Principal"] == {"Service": "pods.eks.amazonaws.com"}
    assert statement["Action"] == ["sts:AssumeRole", "sts:TagSession"]
    assert statement["Condition"]["StringEquals"] == {
        "aws:SourceAccount": "123456789012",
        "aws:SourceArn": "arn:aws:eks:us-west-2:123456789012:cluster/dpd",
    }


def test_the_collector_writes_to_its_one_workspace_only(created):
    workspace = one(created, "aws:amp/workspace:Workspace")
    policy = json.loads(one(created, "aws:iam/rolePolicy:RolePolicy").inputs["policy"])
    write, logs, _ = policy["Statement"]
    assert (write["Action"], write["Resource"]) == (
        "aps:RemoteWrite",
        f"arn:aws:aps:us-west-2:123456789012:workspace/{workspace.id}",
    )
    assert logs["Resource"] == [
        "arn:aws:logs:us-west-2:123456789012:log-group:/aws/sagemaker/Clusters/*",
        "arn:aws:logs:us-west-2:123456789012:log-group:/aws/sagemaker/Clusters/*:log-stream:*",
    ]


def test_the_add_on_waits_for_the_nodes_and_its_role_policy(created):
    addon = one(created, "aws:eks/addon:Addon")
    assert waits_for(created, addon, one(created, "test:index:Nodes"))
    assert waits_for(created, addon, one(created, "aws:iam/rolePolicy:RolePolicy"))


def test_a_named_workspace_is_adopted_not_created():
    adopted = observability(prometheusWorkspaceArn=ADOPTED)
    assert not adopted.of_type("aws:amp/workspace:Workspace")
    config = json.loads(one(adopted, "aws:eks/addon:Addon").inputs["configurationValues"])
    assert config["ampWorkspace"] == {
        "prometheusEndpoint": "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/"
        "ws-0a1b2c3d-1111-2222-3333-444455556666",
        "arn": ADOPTED,
    }
    policy = json.loads(one(adopted, "aws:iam/rolePolicy:RolePolicy").inputs["policy"])
    assert policy["Statement"][0]["Resource"] == ADOPTED


def test_grafana_only_when_asked_with_its_own_reader_role():
    result = observability(grafana={})
    grafana = one(result, "aws:grafana/workspace:Workspace")
    assert grafana.inputs["authenticationProviders"] == ["AWS_SSO"]
    assert grafana.inputs["permissionType"] == "CUSTOMER_MANAGED"
    config = json.loads(one(result, "aws:eks/addon:Addon").inputs["configurationValues"])
    assert config["amgWorkspace"] == {
        "workspaceName": "dpd-dashboards",
        "arn": f"arn:aws:grafana:us-west-2:123456789012:/workspaces/{grafana.id}",
    }
    assert result.outputs["grafana"] == (
        f"https://{grafana.id}.grafana-workspace.us-west-2.amazonaws.com"
    )
    reader = one(result, "aws:iam/rolePolicy:RolePolicy", "observability-grafana")
    read = json.loads(reader.inputs["policy"])["Statement"][0]
    workspace = one(result, "aws:amp/workspace:Workspace")
    assert read["Resource"] == f"arn:aws:aps:us-west-2:123456789012:workspace/{workspace.id}"
    assert "aps:QueryMetrics" in read["Action"]


@pytest.mark.parametrize(
    "kind",
    ["aws:amp/workspace:Workspace", "aws:eks/addon:Addon", "aws:grafana/workspace:Workspace"],
)
def test_the_workspaces_and_the_add_on_are_tagged_as_hyperpods_own(kind):
    assert one(observability(grafana={}), kind).inputs["tags"] == {"SageMaker": "true"}
