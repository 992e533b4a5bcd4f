"""The IAM documents of HyperPod observability: the collector's role and Grafana's.

The collector's role comes through the add-on's Pod Identity association. AWS's troubleshooting
page for the add-on ("Verify Pod Identity association") gives its trust and permissions: remote
write to the workspace (this project names its one workspace) and CloudWatch Logs under
`/aws/sagemaker/Clusters/*`.
"""

from components.core.aws_account import AwsAccount
from components.core.iam_statement import (
    CLOUDWATCH_METRICS_READ,
    PROMETHEUS_READ,
    Statement,
    policy_document,
)
from components.core.service_trust import service_trust_statement

COLLECTOR_SERVICE_ACCOUNT = "hyperpod-observability-operator-otel-collector"
POD_IDENTITY_PRINCIPAL = "pods.eks.amazonaws.com"
GRAFANA_PRINCIPAL = "grafana.amazonaws.com"
CLUSTER_LOG_GROUPS = "log-group:/aws/sagemaker/Clusters/*"

_LOGS = [
    "logs:CreateLogGroup",
    "logs:CreateLogStream",
    "logs:DescribeLogStreams",
    "logs:PutLogEvents",
    "logs:GetLogEvents",
    "logs:FilterLogEvents",
    "logs:GetLogRecord",
    "logs:StartQuery",
    "logs:GetQueryResults",
]
# The page's other two log actions take no log-group ARN: IAM authorizes them on "*" only.
_LOGS_ANY = ["logs:DescribeLogGroups", "logs:StopQuery"]


def _cluster_logs(account: AwsAccount) -> list[str]:
    return [
        account.arn("logs", CLUSTER_LOG_GROUPS),
        account.arn("logs", f"{CLUSTER_LOG_GROUPS}:log-stream:*"),
    ]


def collector_trust(account: AwsAccount, *, eks_cluster_arn: str) -> dict:
    """Pod Identity's trust, held to this account's one EKS cluster."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": POD_IDENTITY_PRINCIPAL},
                "Action": ["sts:AssumeRole", "sts:TagSession"],
                "Condition": {
                    "StringEquals": {
                        "aws:SourceAccount": account.id,
                        "aws:SourceArn": eks_cluster_arn,
                    }
                },
            }
        ],
    }


def collector_policy(account: AwsAccount, *, workspace_arn: str) -> dict:
    return policy_document(
        [
            Statement("aps:RemoteWrite", workspace_arn, sid="PrometheusRemoteWrite"),
            Statement(_LOGS, _cluster_logs(account), sid="ClusterLogs"),
            Statement(_LOGS_ANY, sid="LogQueries"),
        ]
    )


def grafana_trust(account: AwsAccount) -> dict:
    statement = service_trust_statement(GRAFANA_PRINCIPAL, account_id=account.id)
    return {"Version": "2012-10-17", "Statement": [statement]}


def grafana_policy(account: AwsAccount, *, workspace_arn: str) -> dict:
    return policy_document(
        [
            Statement(
                [*PROMETHEUS_READ, "aps:DescribeWorkspace"], workspace_arn, sid="ReadPrometheus"
            ),
            # Listing supports no resource-level permissions.
            Statement("aps:ListWorkspaces", sid="ListWorkspaces"),
            Statement(
                [
                    "logs:GetLogGroupFields",
                    "logs:StartQuery",
                    "logs:GetQueryResults",
                    "logs:GetLogEvents",
                ],
                _cluster_logs(account),
                sid="QueryClusterLogs",
            ),
            Statement(_LOGS_ANY, sid="LogQueries"),
            Statement(CLOUDWATCH_METRICS_READ, sid="ReadCloudWatchMetrics"),
        ]
    )
