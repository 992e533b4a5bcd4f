"""Trust for an AWS service principal, guarded against the confused deputy: conditioned on
`aws:SourceAccount` (IAM User Guide, "The confused deputy problem")."""

SAGEMAKER = "sagemaker.amazonaws.com"


def service_trust_statement(service: str, *, account_id: str) -> dict:
    """`service` may assume the role only on behalf of this account."""
    return {
        "Effect": "Allow",
        "Principal": {"Service": service},
        "Action": "sts:AssumeRole",
        "Condition": {"StringEquals": {"aws:SourceAccount": account_id}},
    }
