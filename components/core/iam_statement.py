"""IAM policy statements as typed values, and the JSON document AWS reads from them."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

POLICY_VERSION = "2012-10-17"
# Reading an AMP workspace (Grafana's data source, KEDA's queries), and CloudWatch's metrics,
# which take no resource-level scope (hyperpod-eks-tf `modules/observability/iam_roles.tf`).
PROMETHEUS_READ = ["aps:QueryMetrics", "aps:GetLabels", "aps:GetSeries", "aps:GetMetricMetadata"]
CLOUDWATCH_METRICS_READ = [
    "cloudwatch:GetMetricData",
    "cloudwatch:GetMetricStatistics",
    "cloudwatch:ListMetrics",
]

# operator -> condition key -> value(s), as IAM spells a Condition block.
Conditions = Mapping[str, Mapping[str, str | Sequence[str]]]


@dataclass(frozen=True)
class Statement:
    # Text is written as text and a sequence as a list: IAM takes either.
    actions: str | Sequence[str]
    resources: str | Sequence[str] = "*"
    conditions: Conditions = field(default_factory=dict)
    sid: str | None = None

    def document(self) -> dict:
        out: dict = {}
        if self.sid:
            out["Sid"] = self.sid
        out["Effect"] = "Allow"
        out["Action"] = _written(self.actions)
        out["Resource"] = _written(self.resources)
        if self.conditions:
            out["Condition"] = {
                operator: {key: _written(value) for key, value in keys.items()}
                for operator, keys in self.conditions.items()
            }
        return out


def _written(value: str | Sequence[str]) -> str | list[str]:
    return value if isinstance(value, str) else list(value)


def policy_document(statements: Sequence[Statement]) -> dict:
    return {"Version": POLICY_VERSION, "Statement": [s.document() for s in statements]}
