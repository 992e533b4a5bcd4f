"""The stack's S3 buckets: their settings, the names the stack gives them, and every rule a
bucket's name follows. Fields are paths under the project (`buckets.tls.name`)."""

import re
from dataclasses import asdict, dataclass

from components.core.findings import Finding, error, field_path
from components.core.reuses import reuses
from components.core.shaped import shaped_str
from components.core.spec import Spec

S3_NAME = r"^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$"
S3_SHAPE = (
    "must be 3 to 63 lowercase letters, digits, '.' or '-', starting and ending with a letter "
    "or digit"
)
KMS_KEY_ARN = r"^arn:aws[a-z-]*:kms:[a-z0-9-]+:[0-9]{12}:key/.+$"
KmsKeyArn = shaped_str(
    KMS_KEY_ARN,
    "must be a KMS key ARN such as "
    "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
)


class BucketSpec(Spec):
    # The shape only: check_bucket_names holds every name, derived ones too, to S3's rules.
    name: shaped_str(S3_NAME, f"S3 bucket names {S3_SHAPE}") | None = None


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


# What S3 refuses beyond the shape. Source: Amazon S3 User Guide, "General purpose bucket
# naming rules" (docs.aws.amazon.com/AmazonS3/latest/userguide/bucketnamingrules.html).
S3_RESERVED_PREFIXES = ("xn--", "sthree-", "amzn-s3-demo-")
S3_RESERVED_SUFFIXES = ("-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3")
_IPV4_SHAPE = r"^\d+\.\d+\.\d+\.\d+$"
# The AWS managed policies grant access by name prefix: the HyperPod instance policy reads
# `sagemaker-*` buckets, the inference operator's policy writes `hyperpod-tls*` ones.
LIFECYCLE_PREFIX = "sagemaker-"
TLS_PREFIX = "hyperpod-tls"


def bucket_name_problem(name: str) -> str | None:
    """Why S3 would refuse `name` as a general purpose bucket name, if it would."""
    if not re.match(S3_NAME, name):
        return S3_SHAPE
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


def bucket_names(spec: BucketsSpec, stack_prefix: str, account_id: str) -> BucketNames:
    """Configured names, or names unique to the stack and the account."""
    return BucketNames(
        logs=spec.logs.name or f"{stack_prefix}-access-logs-{account_id}",
        lifecycle=spec.lifecycle.name or f"{LIFECYCLE_PREFIX}{stack_prefix}-lifecycle-{account_id}",
        model=spec.model.name or f"{stack_prefix}-models-{account_id}",
        tls=spec.tls.name or f"{TLS_PREFIX}-{stack_prefix}-{account_id}",
    )


def check_bucket_names(spec: BucketsSpec, names: BucketNames) -> list[Finding]:
    # Configured names match the S3 shape already; those derived from cluster.name or the
    # stack name are checked here, against every S3 rule.
    roles = list(asdict(names).items())
    found = [
        error(
            "bucket-name",
            field_path("buckets", role, "name"),
            f"{name!r} {problem}"
            if getattr(spec, role).name
            else f"the derived name {name!r} {problem}; set cluster.name to a short lowercase "
            "name, or set this bucket's name",
        )
        for role, name in roles
        if (problem := bucket_name_problem(name))
    ]
    found += [
        error(
            "bucket-name-reused",
            field_path("buckets", roles[i][0], "name"),
            f"{roles[i][1]!r} is already the {roles[first][0]} bucket's name; each bucket needs "
            "its own (S3 names are global, and each holds different access rules)",
        )
        for i, first in reuses([name for _, name in roles])
    ]
    found += [
        error(
            "bucket-prefix",
            field_path("buckets", role, "name"),
            f"{name!r} is not allowed; it must start with {prefix!r}, the prefix the "
            "AWS managed policy grants access to",
        )
        for role, name, prefix in (
            ("lifecycle", names.lifecycle, LIFECYCLE_PREFIX),
            ("tls", names.tls, TLS_PREFIX),
        )
        if not name.startswith(prefix)
    ]
    if spec.model.existing and spec.model.name is None:
        found.append(
            error(
                "existing-bucket-unnamed",
                "buckets.model.name",
                "is required when buckets.model.existing is true",
            )
        )
    return found
