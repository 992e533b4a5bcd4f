"""What a role needs of the buckets' customer managed key, when they use SSE-KMS."""

from components.core.iam_statement import Statement

# Reading an SSE-KMS object decrypts its data key; writing one asks KMS for a new data key
# (S3 User Guide, "Using server-side encryption with AWS KMS keys", permissions).
READ = ("kms:Decrypt",)
WRITE = ("kms:Decrypt", "kms:GenerateDataKey")


def kms_statement(key_arn: str, *, region: str, writes: bool) -> Statement:
    """This one key, used through S3 in the stack's region, to read (and maybe write) objects."""
    return Statement(
        WRITE if writes else READ,
        key_arn,
        {"StringEquals": {"kms:ViaService": f"s3.{region}.amazonaws.com"}},
        sid="BucketKey",
    )
