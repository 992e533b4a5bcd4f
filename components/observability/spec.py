"""The typed `observability` settings: the HyperPod observability add-on and where it writes."""

from typing import Literal

from pydantic import Field

from components.core.shaped import shaped_str
from components.core.spec import Spec
from components.observability.versions import DEFAULT_ADDON_VERSION
from components.operator.spec import addon_release

WORKSPACE_ARN = r"^arn:aws[a-z-]*:aps:[a-z0-9-]+:[0-9]{12}:workspace/ws-[a-zA-Z0-9-]+$"
WorkspaceArn = shaped_str(
    WORKSPACE_ARN,
    "must be an Amazon Managed Prometheus workspace ARN such as "
    "arn:aws:aps:us-west-2:123456789012:workspace/ws-0123abcd-4567-89ef-0123-456789abcdef",
)


class InferenceMetrics(Spec):
    """The add-on's `metricsProvider.inferenceMetrics`: the operator's invocation metrics and
    the model containers' own (30 seconds and BASIC in AWS's reference Terraform)."""

    level: Literal["BASIC", "ADVANCED"] = "BASIC"
    scrape_interval: int = Field(30, ge=1, le=3600)


# The Grafana versions Amazon Managed Grafana creates workspaces with, as pulumi-aws 7.51's
# `grafana.Workspace.grafanaVersion` lists them; unset, AWS picks its newest, so the workspace
# would change version under the stack when AWS adds one.
GrafanaVersion = Literal["9.4", "10.4", "12.4", "13.2"]


class GrafanaSpec(Spec):
    """An Amazon Managed Grafana workspace for the add-on's dashboards. Signing in to it needs
    IAM Identity Center (AWS_SSO) or a SAML identity provider set up in the account."""

    authentication_providers: list[Literal["AWS_SSO", "SAML"]] = Field(["AWS_SSO"], min_length=1)
    # Pinned: a workspace only ever moves to a newer version (AMG user guide, "Update your
    # workspace version"), and 13 is refused (observability/checks.py says why).
    version: GrafanaVersion = "12.4"


class ObservabilitySpec(Spec):
    enabled: bool = False
    addon_version: addon_release(DEFAULT_ADDON_VERSION) = DEFAULT_ADDON_VERSION
    # An Amazon Managed Prometheus workspace to write to; None creates one for the stack.
    prometheus_workspace_arn: WorkspaceArn | None = None
    # Set to create a Grafana workspace; None creates none.
    grafana: GrafanaSpec | None = None
    inference_metrics: InferenceMetrics = InferenceMetrics()
