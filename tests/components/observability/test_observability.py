"""Observability under mocks (preview=False): the workspace, the add-on, its role, association."""

import json

import pulumi
import pytest

from components.core.aws_account import AwsAccount
from components.observability.observability import Observability, ObservabilityArgs
from components.observability.spec import ObservabilitySpec
from components.observability.watched import WatchedEndpoint, WatchedRole
from tests.support import one, run_component, waits_for

ACCOUNT = AwsAccount("123456789012", "aws", "us-west-2")
ADOPTED = "arn:aws:aps:us-west-2:123456789012:workspace/ws-0a1b2c3d-1111-2222-3333-444455556666"


SLO_ENDPOINT = WatchedEndpoint(
    name="dpd",
    namespace="default",
    roles=(WatchedRole("prefill", 1, 4, "vllm:num_requests_waiting"), WatchedRole("decode", 1, 1)),
    ttft_ms=2000,
    tpot_ms=50,
)


def observability(endpoints=(), **spec):
    def build():
        nodes = pulumi.CustomResource("test:index:Nodes", "nodes")
        component = Observability(
            "observability",
            ObservabilityArgs(
                spec=ObservabilitySpec.model_validate({"enabled": True, **spec}),
                cluster_name="dpd",
                eks_cluster="dpd",
                account=ACCOUNT,
                endpoints=endpoints,
            ),
            opts=pulumi.ResourceOptions(depends_on=[nodes]),
        )
        pulumi.export("endpoint", component.prometheus_endpoint)
        pulumi.export("grafana", component.grafana_url)
        pulumi.export("dashboard", component.dashboard_url)

    return run_component(build, region="us-west-2")


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


@pytest.fixture(scope="module")
def with_grafana():
    return observability(endpoints=[SLO_ENDPOINT], grafana={})


def test_the_grafana_workspace_asks_for_no_console_sources_and_turns_alerting_on(with_grafana):
    grafana = one(with_grafana, "aws:grafana/workspace:Workspace")
    assert "dataSources" not in grafana.inputs
    assert json.loads(grafana.inputs["configuration"]) == {"unifiedAlerting": {"enabled": True}}


def test_the_grafana_provider_signs_in_with_a_workspace_service_account_token(with_grafana):
    grafana = one(with_grafana, "aws:grafana/workspace:Workspace")
    account = one(with_grafana, "aws:grafana/workspaceServiceAccount:WorkspaceServiceAccount")
    token = one(with_grafana, "WorkspaceServiceAccountToken")
    assert (account.inputs["workspaceId"], account.inputs["grafanaRole"]) == (grafana.id, "ADMIN")
    assert token.inputs["serviceAccountId"] == account.id.split(",")[1]
    # Thirty days, the longest Amazon Managed Grafana gives a token.
    assert token.inputs["secondsToLive"] == 2592000
    provider = one(with_grafana, "pulumi:providers:grafana")
    assert provider.inputs["url"] == with_grafana.outputs["grafana"]
    # The token reaches the provider, and only as a secret.
    assert provider.inputs["auth"] == "[secret]"
    assert provider.property_dependencies["auth"] == [token.urn]
    written = [r for r in with_grafana.resources if r.type.startswith("grafana:")]
    assert len(written) == 5  # two data sources, the folder, the dashboard, the rules
    assert all(r.provider.startswith(provider.urn) for r in written)


def test_prometheus_is_read_with_sigv4_as_the_workspace_role(with_grafana):
    workspace = one(with_grafana, "aws:amp/workspace:Workspace")
    source = one(with_grafana, "grafana:oss/dataSource:DataSource", "observability-prometheus")
    assert source.inputs["type"] == "prometheus"
    assert source.inputs["url"] == (
        f"https://aps-workspaces.us-west-2.amazonaws.com/workspaces/{workspace.id}"
    )
    assert json.loads(source.inputs["jsonDataEncoded"]) == {
        "httpMethod": "POST",
        "sigV4Auth": True,
        "sigV4AuthType": "ec2_iam_role",
        "sigV4Region": "us-west-2",
    }


def test_the_grafana_role_reads_what_its_data_sources_query(with_grafana):
    reader = one(with_grafana, "aws:iam/rolePolicy:RolePolicy", "observability-grafana")
    allowed = {
        action
        for statement in json.loads(reader.inputs["policy"])["Statement"]
        for action in (
            [statement["Action"]] if isinstance(statement["Action"], str) else statement["Action"]
        )
    }
    prometheus = {"aps:QueryMetrics", "aps:GetLabels", "aps:GetSeries", "aps:GetMetricMetadata"}
    cloudwatch = {"cloudwatch:GetMetricData", "cloudwatch:ListMetrics", "logs:StartQuery"}
    assert prometheus | cloudwatch <= allowed


def test_the_dashboard_is_in_its_folder_and_its_address_is_an_output(with_grafana):
    folder = one(with_grafana, "grafana:oss/folder:Folder")
    dashboard = one(with_grafana, "grafana:oss/dashboard:Dashboard")
    assert dashboard.inputs["folder"] == folder.inputs["uid"]
    assert json.loads(dashboard.inputs["configJson"])["title"] == "HyperPod DPD endpoints"
    assert with_grafana.outputs["dashboard"] == (
        f"{with_grafana.outputs['grafana']}/d/hyperpod-dpd/hyperpod-dpd-endpoints"
    )


def test_the_folder_and_the_dashboard_have_uids_of_their_own(with_grafana):
    # Grafana keys folders and dashboards in one table: a shared uid fails the dashboard's save.
    folder = one(with_grafana, "grafana:oss/folder:Folder")
    dashboard = one(with_grafana, "grafana:oss/dashboard:Dashboard")
    assert folder.inputs["uid"] != json.loads(dashboard.inputs["configJson"])["uid"]


def test_the_workspace_runs_the_pinned_grafana_version(with_grafana):
    assert one(with_grafana, "aws:grafana/workspace:Workspace").inputs["grafanaVersion"] == "12.4"
    older = observability(grafana={"version": "10.4"})
    assert one(older, "aws:grafana/workspace:Workspace").inputs["grafanaVersion"] == "10.4"


def test_what_lives_in_the_workspace_is_deleted_with_it(with_grafana):
    # A destroy then skips their own deletes, which would need the 30-day token.
    workspace = one(with_grafana, "aws:grafana/workspace:Workspace")
    prefixes = ("grafana:", "pulumi:providers:grafana", "aws:grafana/workspaceServiceAccount")
    inside = [r for r in with_grafana.resources if r.type.startswith(prefixes)]
    assert len(inside) == 8
    assert {r.options.get("deletedWith") for r in inside} == {workspace.urn}
    assert "deletedWith" not in workspace.options


def test_the_alert_rules_carry_each_endpoint_slo(with_grafana):
    group = one(with_grafana, "grafana:alerting/ruleGroup:RuleGroup")
    assert group.inputs["intervalSeconds"] == 60
    thresholds = {
        rule["name"]: json.loads(rule["datas"][2]["model"])["conditions"][0]["evaluator"]
        for rule in group.inputs["rules"]
    }
    assert thresholds == {
        "default/dpd time to first token above SLO": {"type": "gt", "params": [2.0]},
        "default/dpd time per output token above SLO": {"type": "gt", "params": [0.05]},
        "default/dpd prefill autoscaling reads no series": {"type": "gt", "params": [0]},
    }
    assert {rule["condition"] for rule in group.inputs["rules"]} == {"C"}


def test_no_rule_group_without_rules():
    plain = WatchedEndpoint(
        "dpd", "default", (WatchedRole("prefill", 1, 1), WatchedRole("decode", 1, 1))
    )
    result = observability(endpoints=[plain], grafana={})
    assert not result.of_type("grafana:alerting/ruleGroup:RuleGroup")
    assert one(result, "grafana:oss/dashboard:Dashboard")


@pytest.mark.parametrize(
    "kind",
    ["aws:amp/workspace:Workspace", "aws:eks/addon:Addon", "aws:grafana/workspace:Workspace"],
)
def test_the_workspaces_and_the_add_on_are_tagged_as_hyperpods_own(kind):
    assert one(observability(grafana={}), kind).inputs["tags"] == {"SageMaker": "true"}
