"""The observability and autoscaler IAM documents pass parliament and stay scoped."""

import json

import pytest
from parliament import analyze_policy_string

from components.cluster.hyperpod_iam import autoscaler_policy
from components.core.aws_account import AwsAccount
from components.observability.iam import collector_policy, grafana_policy

ACCOUNT = AwsAccount("123456789012", "aws", "us-west-2")
WORKSPACE = "arn:aws:aps:us-west-2:123456789012:workspace/ws-1"


@pytest.mark.parametrize(
    "document",
    [
        collector_policy(ACCOUNT, workspace_arn=WORKSPACE),
        grafana_policy(ACCOUNT, workspace_arn=WORKSPACE),
        autoscaler_policy(ACCOUNT),
    ],
    ids=["collector", "grafana", "autoscaler"],
)
def test_parliament_finds_nothing_wrong(document):
    findings = analyze_policy_string(json.dumps(document)).findings
    # Parliament's action list predates HyperPod's continuous scaling APIs (2025); AWS's
    # autoscaling IAM page names them.
    assert [
        f
        for f in findings
        if not (f.issue == "UNKNOWN_ACTION" and "sagemaker:Batch" in str(f.detail))
    ] == []


def test_no_statement_of_the_collector_reaches_beyond_its_workspace_and_cluster_logs():
    write, logs, queries = collector_policy(ACCOUNT, workspace_arn=WORKSPACE)["Statement"]
    assert (write["Action"], write["Resource"]) == ("aps:RemoteWrite", WORKSPACE)
    assert logs["Resource"] == [
        "arn:aws:logs:us-west-2:123456789012:log-group:/aws/sagemaker/Clusters/*",
        "arn:aws:logs:us-west-2:123456789012:log-group:/aws/sagemaker/Clusters/*:log-stream:*",
    ]
    # Only the two actions IAM cannot scope to a log group get "*".
    assert (queries["Action"], queries["Resource"]) == (
        ["logs:DescribeLogGroups", "logs:StopQuery"],
        "*",
    )
