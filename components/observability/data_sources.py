"""The Grafana data sources' settings: Amazon Managed Prometheus and CloudWatch, both signed as
the workspace's IAM role (`ec2_iam_role`), the keys hyperpod-eks-tf's `grafana_workspace.tf`
sets. What the role may read is `iam.grafana_policy`."""

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
