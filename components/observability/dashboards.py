"""Dashboards: what the stack writes into its Grafana workspace, through Grafana's own API.

A CUSTOMER_MANAGED workspace's `dataSources` creates no data source (Amazon Managed Grafana API,
WorkspaceDescription), so, as AWS's hyperpod-eks-tf does, the stack signs in with a service
account token and creates the data sources, a folder, the dashboard and the alert rules.
The token lives `TOKEN_SECONDS` (30 days, the most allowed; docs/operations.md, "Grafana").
Everything here is `deletedWith` the workspace, so `pulumi destroy` never needs that token.
"""

import json
from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws
import pulumiverse_grafana as grafana

from components.observability.alerts import EVALUATION_SECONDS, alert_rules, rule_steps
from components.observability.dashboard import PROMETHEUS_UID, dpd_dashboard
from components.observability.data_sources import (
    CLOUDWATCH_NAME,
    CLOUDWATCH_UID,
    PROMETHEUS_NAME,
    cloudwatch_settings,
    prometheus_settings,
)
from components.observability.watched import WatchedEndpoint

TOKEN_SECONDS = 30 * 24 * 3600
FOLDER_TITLE = "HyperPod DPD"
# Grafana keeps folders and dashboards in one table keyed by uid, and refuses to save a
# dashboard over a folder's (400 "Dashboard cannot be changed to a folder", grafana/grafana
# dashboard_service_integration_test.go): the folder needs a uid of its own.
FOLDER_UID = "hyperpod-dpd-folder"
RULE_GROUP = "dpd-endpoints"


@dataclass(frozen=True)
class DashboardsArgs:
    # The workspace they are written into, and deleted with.
    workspace: aws.grafana.Workspace
    # The workspace's address, https://<id>.grafana-workspace.<region>.amazonaws.com.
    grafana_url: pulumi.Input[str]
    prometheus_endpoint: pulumi.Input[str]
    region: str
    cluster_name: str
    endpoints: Sequence[WatchedEndpoint]


class Dashboards(pulumi.ComponentResource):
    def __init__(
        self, name: str, args: DashboardsArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("hyperpod-dpd:observability:Dashboards", name, None, opts)
        workspace = args.workspace
        child = pulumi.ResourceOptions(parent=self, deleted_with=workspace)
        account = aws.grafana.WorkspaceServiceAccount(
            name,
            workspace_id=workspace.id,
            name=f"{args.cluster_name}-pulumi",
            grafana_role="ADMIN",
            opts=child,
        )
        token = aws.grafana.WorkspaceServiceAccountToken(
            name,
            workspace_id=workspace.id,
            service_account_id=account.service_account_id,
            name=f"{args.cluster_name}-pulumi",
            seconds_to_live=TOKEN_SECONDS,
            opts=child,
        )
        provider = grafana.Provider(
            name, url=args.grafana_url, auth=pulumi.Output.secret(token.key), opts=child
        )
        on_grafana = pulumi.ResourceOptions(parent=self, provider=provider, deleted_with=workspace)

        prometheus = grafana.oss.DataSource(
            f"{name}-prometheus",
            type="prometheus",
            name=PROMETHEUS_NAME,
            uid=PROMETHEUS_UID,
            url=args.prometheus_endpoint,
            is_default=True,
            json_data_encoded=json.dumps(prometheus_settings(args.region)),
            opts=on_grafana,
        )
        grafana.oss.DataSource(
            f"{name}-cloudwatch",
            type="cloudwatch",
            name=CLOUDWATCH_NAME,
            uid=CLOUDWATCH_UID,
            json_data_encoded=json.dumps(cloudwatch_settings(args.region)),
            opts=on_grafana,
        )
        folder = grafana.oss.Folder(name, title=FOLDER_TITLE, uid=FOLDER_UID, opts=on_grafana)
        after_sources = pulumi.ResourceOptions.merge(
            on_grafana, pulumi.ResourceOptions(depends_on=[prometheus])
        )
        dashboard = grafana.oss.Dashboard(
            name,
            config_json=json.dumps(dpd_dashboard(args.endpoints), sort_keys=True),
            folder=folder.uid,
            overwrite=True,
            opts=after_sources,
        )
        if rules := alert_rules(args.endpoints):
            grafana.alerting.RuleGroup(
                name,
                name=RULE_GROUP,
                folder_uid=folder.uid,
                interval_seconds=EVALUATION_SECONDS,
                rules=[
                    grafana.alerting.RuleGroupRuleArgs(
                        name=rule.title,
                        condition="C",
                        for_=rule.for_,
                        no_data_state="OK",
                        exec_err_state="Error",
                        annotations={"summary": rule.summary},
                        labels={"severity": rule.severity},
                        datas=[
                            grafana.alerting.RuleGroupRuleDataArgs(
                                ref_id=step["ref_id"],
                                datasource_uid=step["datasource_uid"],
                                model=step["model"],
                                relative_time_range=(
                                    grafana.alerting.RuleGroupRuleDataRelativeTimeRangeArgs(
                                        **step["relative_time_range"]
                                    )
                                ),
                            )
                            for step in rule_steps(rule, PROMETHEUS_UID)
                        ],
                    )
                    for rule in rules
                ],
                opts=after_sources,
            )

        self.dashboard_url: pulumi.Output[str] = dashboard.url
        self.register_outputs({"dashboardUrl": self.dashboard_url})
