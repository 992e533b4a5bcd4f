"""LifecycleScripts: the node setup scripts, uploaded where HyperPod reads them."""

from dataclasses import dataclass
from pathlib import Path

import pulumi
import pulumi_aws as aws

from components.cluster.lifecycle_bundle import ENTRY_POINT, bundle


@dataclass(frozen=True)
class LifecycleScriptsArgs:
    bucket: pulumi.Input[str]
    directory: Path


class LifecycleScripts(pulumi.ComponentResource):
    def __init__(
        self, name: str, args: LifecycleScriptsArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("hyperpod-dpd:hyperpod:LifecycleScripts", name, None, opts)
        scripts = bundle(args.directory)
        self.objects = [
            aws.s3.BucketObjectv2(
                f"{name}-{path.name}",
                bucket=args.bucket,
                key=f"{scripts.prefix}/{path.name}",
                source=pulumi.FileAsset(str(path)),
                content_type="text/x-shellscript",
                opts=pulumi.ResourceOptions(parent=self),
            )
            for path in scripts.files
        ]
        self.source_s3_uri = pulumi.Output.concat("s3://", args.bucket, f"/{scripts.prefix}")
        self.on_create = ENTRY_POINT
        self.register_outputs({"sourceS3Uri": self.source_s3_uri})
