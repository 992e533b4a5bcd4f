"""What a hardened bucket is: encrypted at rest and never public. HardenedBucket builds every
bucket from these definitions and the policy pack holds every bucket to them: no Pulumi here."""

from collections.abc import Mapping, Sequence

# S3 default encryption: SSE-S3, or SSE-KMS with a key.
SSE_S3 = "AES256"
SSE_KMS = "aws:kms"
SSE_ALGORITHMS = (SSE_S3, SSE_KMS)

# The four switches of a public access block, as the engine names them and as pulumi_aws's
# Python arguments do. A hardened bucket turns every one on.
PUBLIC_ACCESS_BLOCK_FLAGS = {
    "blockPublicAcls": "block_public_acls",
    "blockPublicPolicy": "block_public_policy",
    "ignorePublicAcls": "ignore_public_acls",
    "restrictPublicBuckets": "restrict_public_buckets",
}

# The model bucket's resource name: the policy pack finds it by this name.
MODEL_BUCKET_RESOURCE = "model-weights"

# Canned ACLs that open a bucket to everyone, or to every AWS account.
PUBLIC_ACLS = ("public-read", "public-read-write", "authenticated-read")


def bucket_violations(
    encryptions: Sequence[Mapping],
    public_access_blocks: Sequence[Mapping],
    acls: Sequence[str | None],
) -> list[str]:
    allowed = " or ".join(SSE_ALGORITHMS)
    algorithms = [
        (rule.get("applyServerSideEncryptionByDefault") or {}).get("sseAlgorithm")
        for configuration in encryptions
        for rule in configuration.get("rules") or []
    ]
    if not algorithms:
        found = [
            f"has no default encryption; add a server-side encryption configuration with {allowed}"
        ]
    else:
        found = [
            f"encrypts by default with {algorithm!r}; allowed are {allowed}"
            for algorithm in algorithms
            if algorithm not in SSE_ALGORITHMS
        ]
    required = ", ".join(PUBLIC_ACCESS_BLOCK_FLAGS)
    off = [
        flag
        for block in public_access_blocks
        for flag in PUBLIC_ACCESS_BLOCK_FLAGS
        if block.get(flag) is not True
    ]
    if not public_access_blocks:
        found.append(f"has no public access block; add one with {required} all true")
    elif off:
        found.append(
            f"has {', '.join(off)} off in its public access block; {required} must all be on"
        )
    return found + [
        f"has the ACL {acl!r}, which makes it public; use private"
        for acl in acls
        if acl in PUBLIC_ACLS
    ]


def model_bucket_violations(
    *, force_destroy: bool, versioning_statuses: Sequence[str | None]
) -> list[str]:
    """Why the model bucket, whose weights take hours to copy in, could be lost: it must be
    versioned and never emptied by a `pulumi destroy` (its `retainOnDelete` policies do not see)."""
    found = []
    if force_destroy:
        found.append("is emptied when deleted; set forceDestroy=False on it")
    if "Enabled" not in versioning_statuses:
        found.append("is not versioned; add a bucket versioning configuration with status Enabled")
    return found
