"""The Grafana data sources' settings: Amazon Managed Prometheus and CloudWatch, both read as
the Grafana workspace's own IAM role.

Amazon Managed Grafana signs requests as the workspace role when a data source's SigV4 auth
type is `ec2_iam_role`; AWS's reference Terraform sets exactly these keys for its `prometheus`
and `cloudwatch` sources (hyperpod-eks-tf `modules/observability/grafana_workspace.tf`). What
the role may read is `iam.grafana_policy`.
"""

from __future__ import annotations

PROMETHEUS_NAME = "Amazon Managed Prometheus"
CLOUDWATCH_NAME = "CloudWatch"
CLOUDWATCH_UID = "hyperpod-dpd-cloudwatch"
WORKSPACE_ROLE = "ec2_iam_role"


def prometheus_settings(region: str) -> dict:
    # POST keeps long PromQL out of URLs, as the reference does.
    return {
        "httpMethod": "POST",
        "sigV4Auth": True,
        "sigV4AuthType": WORKSPACE_ROLE,
        "sigV4Region": region,
    }


def cloudwatch_settings(region: str) -> dict:
    return {"authType": WORKSPACE_ROLE, "defaultRegion": region}
