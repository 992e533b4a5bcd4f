"""Observability: HyperPod's observability add-on, writing to Amazon Managed Prometheus (a new
workspace or the one named), with its collector's role; and, when asked, an Amazon Managed
Grafana workspace with the dashboard and alert rules (`dashboards`). Pass what must run first,
the nodes the add-on's pods land on (4xlarge or larger), in `opts.depends_on`."""

import json
from collections.abc import Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from components.core.aws_account import AwsAccount
from components.core.options import NODE_ADDON_TIMEOUTS, inherited_depends_on
from components.observability.config import addon_configuration
from components.observability.iam import (
    COLLECTOR_SERVICE_ACCOUNT,
    collector_policy,
    collector_trust,
    grafana_policy,
    grafana_trust,
)
from components.observability.spec import ObservabilitySpec
from components.observability.versions import ADDON_NAME
from components.observability.watched import WatchedEndpoint
from components.observability.workspace import server_address

# As HyperPod's own setup and hyperpod-eks-tf tag them, so what looks for HyperPod's
# observability resources finds the stack's.
SAGEMAKER_TAGS = {"SageMaker": "true"}


@dataclass(frozen=True)
class ObservabilityArgs:
    spec: ObservabilitySpec
    # What the workspaces and roles are named after. The collector's trust names the cluster's
    # ARN from it, which a cluster created again under that name keeps.
    cluster_name: str
    # The EKS cluster the add-on goes into, by name: pass the cluster resource's output, so
    # that a replaced cluster replaces the add-on (its clusterName forces a new one).
    eks_cluster: pulumi.Input[str]
    account: AwsAccount
    # The endpoints the dashboard shows and the alerts watch.
    endpoints: Sequence[WatchedEndpoint] = ()


class Observability(pulumi.ComponentResource):
    def __init__(
        self, name: str, args: ObservabilityArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("hyperpod-dpd:observability:Observability", name, None, opts)
        spec, account = args.spec, args.account
        child = pulumi.ResourceOptions(parent=self)

        if spec.prometheus_workspace_arn is None:
            workspace = aws.amp.Workspace(
                name, alias=f"{args.cluster_name}-metrics", tags=SAGEMAKER_TAGS, opts=child
            )
            workspace_arn: pulumi.Output[str] = workspace.arn
            # AMP's endpoint ends in a slash; the add-on and KEDA's trigger take it without.
            endpoint = workspace.prometheus_endpoint.apply(lambda e: e.rstrip("/"))
        else:
            workspace_arn = pulumi.Output.from_input(spec.prometheus_workspace_arn)
            endpoint = pulumi.Output.from_input(server_address(spec.prometheus_workspace_arn))

        eks_cluster_arn = account.arn("eks", f"cluster/{args.cluster_name}")
        collector, collector_access = self._role(
            f"{name}-collector",
            trust=collector_trust(account, eks_cluster_arn=eks_cluster_arn),
            description=f"HyperPod observability collector of {args.cluster_name}",
            policy_name="remote-write",
            policy=workspace_arn.apply(lambda arn: collector_policy(account, workspace_arn=arn)),
        )

        grafana = self._grafana(name, args, workspace_arn) if spec.grafana else None
        configuration = pulumi.Output.all(
            endpoint,
            workspace_arn,
            grafana.name if grafana else None,
            grafana.arn if grafana else None,
        ).apply(
            lambda v: json.dumps(
                addon_configuration(
                    prometheus_endpoint=v[0],
                    workspace_arn=v[1],
                    inference_metrics=spec.inference_metrics,
                    grafana_workspace=(v[2], v[3]) if v[2] else None,
                )
            )
        )
        self.addon = aws.eks.Addon(
            name,
            cluster_name=args.eks_cluster,
            addon_name=ADDON_NAME,
            addon_version=spec.addon_version,
            configuration_values=configuration,
            # The add-on owns the association, as AWS's troubleshooting page expects to find it.
            pod_identity_associations=[
                aws.eks.AddonPodIdentityAssociationArgs(
                    role_arn=collector.arn, service_account=COLLECTOR_SERVICE_ACCOUNT
                )
            ],
            resolve_conflicts_on_create="OVERWRITE",
            resolve_conflicts_on_update="OVERWRITE",
            tags=SAGEMAKER_TAGS,
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=[*inherited_depends_on(opts), collector_access],
                custom_timeouts=NODE_ADDON_TIMEOUTS,
            ),
        )

        self.workspace_arn = workspace_arn
        # The workspace's query (and remote-write) base address, as KEDA's trigger takes it.
        self.prometheus_endpoint = endpoint
        self.grafana_url = grafana.endpoint.apply(lambda e: f"https://{e}") if grafana else None
        self.dashboard_url = None
        if grafana is not None and self.grafana_url is not None:
            # Imported only with Grafana: the Grafana provider and Grafana's dashboard models
            # take about 70 ms to import, which every render would pay otherwise.
            from components.observability.dashboards import Dashboards, DashboardsArgs

            self.dashboard_url = Dashboards(
                name,
                DashboardsArgs(
                    workspace=grafana,
                    grafana_url=self.grafana_url,
                    prometheus_endpoint=endpoint,
                    region=account.region,
                    cluster_name=args.cluster_name,
                    endpoints=args.endpoints,
                ),
                opts=pulumi.ResourceOptions(parent=self),
            ).dashboard_url
        self.register_outputs(
            {
                "workspaceArn": self.workspace_arn,
                "prometheusEndpoint": self.prometheus_endpoint,
                "grafanaUrl": self.grafana_url,
                "dashboardUrl": self.dashboard_url,
            }
        )

    def _grafana(
        self, name: str, args: ObservabilityArgs, workspace_arn: pulumi.Output[str]
    ) -> aws.grafana.Workspace:
        """The Grafana workspace, reading the metrics through a role of its own, with Grafana's
        alerting on (as AWS's reference Terraform configures it) for the SLO rules."""
        assert args.spec.grafana is not None
        role, access = self._role(
            f"{name}-grafana",
            trust=grafana_trust(args.account),
            description=f"Grafana dashboards of {args.cluster_name}",
            policy_name="read-metrics",
            policy=workspace_arn.apply(lambda arn: grafana_policy(args.account, workspace_arn=arn)),
        )
        return aws.grafana.Workspace(
            name,
            name=f"{args.cluster_name}-dashboards",
            account_access_type="CURRENT_ACCOUNT",
            authentication_providers=list(args.spec.grafana.authentication_providers),
            permission_type="CUSTOMER_MANAGED",
            grafana_version=args.spec.grafana.version,
            role_arn=role.arn,
            configuration=json.dumps({"unifiedAlerting": {"enabled": True}}),
            tags=SAGEMAKER_TAGS,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[access]),
        )

    def _role(
        self,
        name: str,
        *,
        trust: dict,
        description: str,
        policy_name: str,
        policy: pulumi.Output[dict],
    ) -> tuple[aws.iam.Role, aws.iam.RolePolicy]:
        """A role with its one inline policy; what uses the role waits for the policy."""
        child = pulumi.ResourceOptions(parent=self)
        role = aws.iam.Role(
            name, assume_role_policy=json.dumps(trust), description=description, opts=child
        )
        access = aws.iam.RolePolicy(
            name, name=policy_name, role=role.name, policy=policy.apply(json.dumps), opts=child
        )
        return role, access
