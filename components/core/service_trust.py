"""Trust for an AWS service principal, guarded against the confused deputy: conditioned on
`aws:SourceAccount`, and on `aws:SourceArn` where known (IAM User Guide, "The confused deputy
problem")."""

SAGEMAKER = "sagemaker.amazonaws.com"


def service_trust_statement(
    service: str, *, account_id: str, source_arn_pattern: str | None = None
) -> dict:
    """`service` may assume the role only on behalf of this account (and `source_arn_pattern`)."""
    condition: dict = {"StringEquals": {"aws:SourceAccount": account_id}}
    if source_arn_pattern is not None:
        condition["ArnLike"] = {"aws:SourceArn": source_arn_pattern}
    return {
        "Effect": "Allow",
        "Principal": {"Service": service},
        "Action": "sts:AssumeRole",
        "Condition": condition,
    }
