"""The typed `observability` settings: the HyperPod observability add-on and where it writes."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from components.core.spec import Spec
from components.observability.versions import DEFAULT_ADDON_VERSION
from components.operator.versions import ADDON_VERSION

WORKSPACE_ARN = r"^arn:aws[a-z-]*:aps:[a-z0-9-]+:[0-9]{12}:workspace/ws-[a-zA-Z0-9-]+$"


class InferenceMetrics(Spec):
    """The add-on's `metricsProvider.inferenceMetrics`: the operator's invocation metrics and
    the model containers' own (30 seconds and BASIC in AWS's reference Terraform)."""

    level: Literal["BASIC", "ADVANCED"] = "BASIC"
    scrape_interval: int = Field(30, ge=1, le=3600)


class GrafanaSpec(Spec):
    """An Amazon Managed Grafana workspace for the add-on's dashboards. Signing in to it needs
    IAM Identity Center (AWS_SSO) or a SAML identity provider set up in the account."""

    authentication_providers: list[Literal["AWS_SSO", "SAML"]] = Field(["AWS_SSO"], min_length=1)


class ObservabilitySpec(Spec):
    enabled: bool = False
    addon_version: str = Field(DEFAULT_ADDON_VERSION, pattern=ADDON_VERSION)
    # An Amazon Managed Prometheus workspace to write to; None creates one for the stack.
    prometheus_workspace_arn: str | None = Field(None, pattern=WORKSPACE_ARN)
    # Set to create a Grafana workspace; None creates none.
    grafana: GrafanaSpec | None = None
    inference_metrics: InferenceMetrics = InferenceMetrics()
