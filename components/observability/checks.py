"""Rules on the observability settings alone; those tying it to the endpoints are the
endpoint's (components/endpoint/observability_checks.py), since endpoints read observability.
"""

from components.core.findings import Finding, error
from components.observability.spec import ObservabilitySpec
from components.observability.versions import MINIMUM_ADDON_VERSION
from components.operator.versions import at_least

# The regions AWS's reference Terraform offers Amazon Managed Grafana in (hyperpod-eks-tf
# `modules/observability/main.tf`, amg_allowed_regions).
GRAFANA_REGIONS = (
    "us-east-1",
    "us-east-2",
    "us-west-2",
    "ap-northeast-1",
    "ap-southeast-1",
    "ap-southeast-2",
    "eu-central-1",
    "eu-west-1",
    "eu-west-2",
)


def check_observability(spec: ObservabilitySpec, region: str) -> list[Finding]:
    if not spec.enabled:
        # Settings the stack reads only with observability on, which off it would ignore.
        ignored = {"grafana": spec.grafana, "prometheusWorkspaceArn": spec.prometheus_workspace_arn}
        return [
            error(
                "observability-off",
                f"observability.{key}",
                "is set while observability.enabled is false, so the stack would ignore it; set "
                f"enabled: true, or remove {key}",
            )
            for key, value in ignored.items()
            if value is not None
        ]
    found = []
    if not at_least(spec.addon_version, MINIMUM_ADDON_VERSION):
        found.append(
            error(
                "observability-addon-below-floor",
                "observability.addonVersion",
                f"{spec.addon_version} is older than {MINIMUM_ADDON_VERSION}, the oldest release "
                "AWS documents and asks users to run",
            )
        )
    # AWS's "Cluster metrics" table lists no advanced inference metrics, unlike training or
    # cluster metrics: ADVANCED would promise series that never come.
    if spec.inference_metrics.level == "ADVANCED":
        found.append(
            error(
                "inference-metrics-advanced",
                "observability.inferenceMetrics.level",
                "ADVANCED is not allowed: AWS's HyperPod cluster-metrics table lists no advanced "
                "inference metrics, so it would collect nothing more than BASIC; use BASIC",
            )
        )
    if spec.grafana is not None and region not in GRAFANA_REGIONS:
        found.append(
            error(
                "grafana-region",
                "observability.grafana",
                f"Amazon Managed Grafana is not offered in {region}; it is in "
                f"{', '.join(GRAFANA_REGIONS)}",
            )
        )
    # Grafana 13 migrates SigV4 Prometheus data sources to `grafana-amazonprometheus-datasource`
    # when it starts, so the stack's `prometheus` one would read as drift on every refresh.
    if spec.grafana is not None and spec.grafana.version == "13.2":
        found.append(
            error(
                "grafana-13",
                "observability.grafana.version",
                "13.2 is not allowed: Grafana 13 turns the stack's SigV4 prometheus data source "
                "into another plugin type when it starts, which every pulumi up would then fight; "
                "use 12.4 (the default) or 10.4",
            )
        )
    return found
