"""The typed description of the stack's S3 buckets; unnamed ones get names from the stack."""

from __future__ import annotations

import re
from dataclasses import dataclass

from components.core.shaped import shaped_str
from components.core.spec import Spec

S3_NAME = r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$"
# What S3 refuses beyond that shape. Source: Amazon S3 User Guide, "General purpose bucket
# naming rules" (docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html).
S3_RESERVED_PREFIXES = ("xn--", "sthree-", "amzn-s3-demo-")
S3_RESERVED_SUFFIXES = ("-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3")
_IPV4_SHAPE = r"^\d+\.\d+\.\d+\.\d+$"
KMS_KEY_ARN = r"^arn:aws[a-z-]*:kms:[a-z0-9-]+:[0-9]{12}:key/.+$"


_S3_SHAPE = (
    "must be 3 to 63 lowercase letters, digits, '.' or '-', starting and ending with a letter "
    "or digit"
)
KmsKeyArn = shaped_str(
    KMS_KEY_ARN,
    "must be a KMS key ARN such as "
    "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
)


class BucketSpec(Spec):
    # The shape only: infra/stack_checks.py holds every name, derived ones too, to S3's rules.
    name: shaped_str(S3_NAME, f"S3 bucket names {_S3_SHAPE}") | None = None


class ModelBucketSpec(BucketSpec):
    # Read the weights from a bucket this stack does not own.
    existing: bool = False


class BucketsSpec(Spec):
    logs: BucketSpec = BucketSpec()
    lifecycle: BucketSpec = BucketSpec()
    model: ModelBucketSpec = ModelBucketSpec()
    tls: BucketSpec = BucketSpec()
    # Customer managed key for the data buckets; SSE-S3 when unset. Access logs always use
    # SSE-S3, the only encryption S3 server access logging delivers to.
    kms_key_arn: KmsKeyArn | None = None
    # Protect every bucket: `pulumi destroy` then fails until `pulumi state unprotect`.
    protect: bool = False


def bucket_name_problem(name: str) -> str | None:
    """Why S3 would refuse `name` as a general purpose bucket name, if it would."""
    if not re.match(S3_NAME, name):
        return _S3_SHAPE
    if ".." in name or re.match(_IPV4_SHAPE, name):
        return "must not hold two adjacent periods or look like an IP address"
    if name.startswith(S3_RESERVED_PREFIXES) or name.endswith(S3_RESERVED_SUFFIXES):
        reserved = ", ".join((*S3_RESERVED_PREFIXES, *S3_RESERVED_SUFFIXES))
        return f"must not start or end with what S3 reserves ({reserved})"
    return None


@dataclass(frozen=True)
class BucketNames:
    logs: str
    lifecycle: str
    model: str
    tls: str


# The AWS managed policies grant access by name prefix: the HyperPod instance policy reads
# `sagemaker-*` buckets, the inference operator's policy writes `hyperpod-tls*` ones.
LIFECYCLE_PREFIX = "sagemaker-"
TLS_PREFIX = "hyperpod-tls"


def bucket_names(spec: BucketsSpec, stack_prefix: str, account_id: str) -> BucketNames:
    """Configured names, or names unique to the stack and the account."""
    return BucketNames(
        logs=spec.logs.name or f"{stack_prefix}-access-logs-{account_id}",
        lifecycle=spec.lifecycle.name or f"{LIFECYCLE_PREFIX}{stack_prefix}-lifecycle-{account_id}",
        model=spec.model.name or f"{stack_prefix}-models-{account_id}",
        tls=spec.tls.name or f"{TLS_PREFIX}-{stack_prefix}-{account_id}",
    )
