"""Buckets: the stack's access logs, lifecycle scripts, model weights and TLS certificates."""

from dataclasses import dataclass

import pulumi

from components.storage.hardened_bucket import HardenedBucket, HardenedBucketArgs
from components.storage.hardening import MODEL_BUCKET_RESOURCE
from components.storage.spec import BucketNames


@dataclass(frozen=True)
class BucketsArgs:
    names: BucketNames
    account_id: str
    kms_key_arn: str | None = None
    protect: bool = False
    # The weights live in a bucket this stack does not own.
    model_bucket_exists: bool = False
    # A cluster this stack does not build needs no lifecycle scripts.
    lifecycle_scripts: bool = True


class Buckets(pulumi.ComponentResource):
    def __init__(
        self, name: str, args: BucketsArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("hyperpod-dpd:storage:Buckets", name, None, opts)
        names = args.names
        child = pulumi.ResourceOptions(parent=self)
        logs = HardenedBucket(
            "access-logs",
            HardenedBucketArgs(
                names.logs,
                logs_bucket=None,
                protect=args.protect,
                force_destroy=True,
                receives_logs_from=args.account_id,
            ),
            opts=child,
        )

        def data_bucket(
            role: str,
            bucket_name: str,
            *,
            protect: bool,
            versioned: bool = False,
            retained: bool = False,
        ) -> HardenedBucket:
            return HardenedBucket(
                role,
                HardenedBucketArgs(
                    bucket_name,
                    logs_bucket=logs.name,
                    kms_key_arn=args.kms_key_arn,
                    versioned=versioned,
                    protect=protect,
                    retain_on_delete=retained,
                    force_destroy=not retained,
                ),
                opts=child,
            )

        # The scripts run as root on every node: versioning keeps each one that ever ran, and
        # a bad upload can be rolled back.
        self.lifecycle = (
            data_bucket("lifecycle", names.lifecycle, protect=args.protect, versioned=True)
            if args.lifecycle_scripts
            else None
        )
        # Weights take hours to copy in: always versioned, and retained rather than protected,
        # so that `pulumi destroy` succeeds and leaves them in the account (a protected bucket
        # would make the destroy fail). `buckets.protect` protects it as well, on request.
        self.model = (
            None
            if args.model_bucket_exists
            else data_bucket(
                MODEL_BUCKET_RESOURCE,
                names.model,
                protect=args.protect,
                versioned=True,
                retained=True,
            )
        )
        self.tls = data_bucket("tls-certificates", names.tls, protect=args.protect)
        self.model_name: pulumi.Input[str] = self.model.name if self.model else names.model
        self.register_outputs(
            {
                "logs": logs.name,
                "lifecycle": self.lifecycle.name if self.lifecycle else None,
                "model": self.model_name,
                "tls": self.tls.name,
            }
        )
