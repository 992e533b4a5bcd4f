"""The observability add-on's configuration values: the keys AWS's reference Terraform sets
(awslabs/awsome-distributed-training, hyperpod-eks-tf `modules/observability/eks_addon.tf`)."""

from components.observability.spec import InferenceMetrics


def addon_configuration(
    *,
    prometheus_endpoint: str,
    workspace_arn: str,
    inference_metrics: InferenceMetrics,
    grafana_workspace: tuple[str, str] | None = None,
) -> dict:
    """`grafana_workspace` is the Grafana workspace's (name, ARN), when there is one."""
    out: dict = {
        # The reference trims the workspace endpoint's trailing slash.
        "ampWorkspace": {
            "prometheusEndpoint": prometheus_endpoint.rstrip("/"),
            "arn": workspace_arn,
        },
        "metricsProvider": {
            "inferenceMetrics": {
                "level": inference_metrics.level,
                "scrapeInterval": inference_metrics.scrape_interval,
            }
        },
    }
    if grafana_workspace is not None:
        name, arn = grafana_workspace
        out["amgWorkspace"] = {"workspaceName": name, "arn": arn}
    return out
