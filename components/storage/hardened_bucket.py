"""HardenedBucket: the one way this project makes an S3 bucket."""

import json
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from components.storage.hardening import PUBLIC_ACCESS_BLOCK_FLAGS, SSE_KMS, SSE_S3
from components.storage.policy import bucket_policy


@dataclass(frozen=True)
class HardenedBucketArgs:
    bucket_name: str
    # Where this bucket's access logs go; None for the access-log bucket itself.
    logs_bucket: pulumi.Input[str] | None
    # SSE-KMS with this key; SSE-S3 when None.
    kms_key_arn: str | None = None
    # For data that matters: keep every version.
    versioned: bool = False
    # Refuse `pulumi destroy` (and any replacement) until `pulumi state unprotect`.
    protect: bool = False
    # Keep the bucket, hardened, in AWS when Pulumi deletes it (a destroy, or a rename that
    # replaces): the destroy succeeds and only forgets it.
    retain_on_delete: bool = False
    # Delete every object and every version with the bucket, so that `pulumi destroy` does not
    # stop at BucketNotEmpty. Never together with retain_on_delete.
    force_destroy: bool = False
    # The account whose buckets deliver access logs here, for the access-log bucket.
    receives_logs_from: str | None = None


class HardenedBucket(pulumi.ComponentResource):
    """Encrypted, private, TLS-only, owner-enforced, and logged."""

    def __init__(
        self, name: str, args: HardenedBucketArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("hyperpod-dpd:storage:HardenedBucket", name, None, opts)
        # A retained bucket keeps its encryption, public access block, policy and versioning:
        # deleting those would leave it in the account unhardened and unversioned.
        child = pulumi.ResourceOptions(parent=self, retain_on_delete=args.retain_on_delete)
        self.bucket = aws.s3.Bucket(
            name,
            bucket=args.bucket_name,
            # The provider empties the bucket first, object versions and delete markers included
            # (terraform-provider-aws `emptyBucket`); it takes effect only once an update has
            # recorded it in the state (pulumi-aws docs, s3.Bucket `forceDestroy`).
            force_destroy=args.force_destroy,
            opts=pulumi.ResourceOptions(
                parent=self, protect=args.protect, retain_on_delete=args.retain_on_delete
            ),
        )
        aws.s3.BucketOwnershipControls(
            name,
            bucket=self.bucket.id,
            rule={"object_ownership": "BucketOwnerEnforced"},
            opts=child,
        )
        public_access = aws.s3.BucketPublicAccessBlock(
            name,
            bucket=self.bucket.id,
            **{argument: True for argument in PUBLIC_ACCESS_BLOCK_FLAGS.values()},
            opts=child,
        )
        default = (
            {"sse_algorithm": SSE_KMS, "kms_master_key_id": args.kms_key_arn}
            if args.kms_key_arn
            else {"sse_algorithm": SSE_S3}
        )
        aws.s3.BucketServerSideEncryptionConfiguration(
            name,
            bucket=self.bucket.id,
            rules=[
                {"apply_server_side_encryption_by_default": default, "bucket_key_enabled": True}
            ],
            opts=child,
        )
        aws.s3.BucketPolicy(
            name,
            bucket=self.bucket.id,
            policy=self.bucket.arn.apply(
                lambda arn: json.dumps(
                    bucket_policy(arn, receives_logs_from=args.receives_logs_from)
                )
            ),
            # S3 refuses policy changes while the public access block is being applied.
            opts=pulumi.ResourceOptions.merge(
                child, pulumi.ResourceOptions(depends_on=[public_access])
            ),
        )
        if args.versioned:
            aws.s3.BucketVersioning(
                name,
                bucket=self.bucket.id,
                versioning_configuration={"status": "Enabled"},
                opts=child,
            )
        if args.logs_bucket is not None:
            aws.s3.BucketLogging(
                name,
                bucket=self.bucket.id,
                target_bucket=args.logs_bucket,
                target_prefix=f"{args.bucket_name}/",
                # The log bucket goes with the stack: a kept bucket stops logging to it.
                opts=pulumi.ResourceOptions(parent=self),
            )
        self.name = self.bucket.bucket
        self.arn = self.bucket.arn
        self.register_outputs({"name": self.name, "arn": self.arn})
