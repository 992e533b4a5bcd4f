"""The policy every bucket of the stack carries: TLS only, plus log delivery where it applies."""


def tls_only(bucket_arn: str) -> dict:
    return {
        "Sid": "DenyInsecureTransport",
        "Effect": "Deny",
        "Principal": "*",
        "Action": "s3:*",
        "Resource": [bucket_arn, f"{bucket_arn}/*"],
        "Condition": {"Bool": {"aws:SecureTransport": "false"}},
    }


def log_delivery(bucket_arn: str, account_id: str) -> dict:
    """Lets S3 server access logging write here, for buckets of this account only."""
    return {
        "Sid": "AllowAccessLogDelivery",
        "Effect": "Allow",
        "Principal": {"Service": "logging.s3.amazonaws.com"},
        "Action": "s3:PutObject",
        "Resource": f"{bucket_arn}/*",
        "Condition": {"StringEquals": {"aws:SourceAccount": account_id}},
    }


def bucket_policy(bucket_arn: str, *, receives_logs_from: str | None = None) -> dict:
    statements = [tls_only(bucket_arn)]
    if receives_logs_from is not None:
        statements.append(log_delivery(bucket_arn, receives_logs_from))
    return {"Version": "2012-10-17", "Statement": statements}
