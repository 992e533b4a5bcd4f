"""Where an endpoint's weights come from: an S3 prefix, an FSx for Lustre file system or a
Hugging Face model, in the shapes S3, FSx and Hugging Face take."""

from __future__ import annotations

from pydantic import Field, field_validator, model_validator

from components.core.kubernetes_names import KubernetesName
from components.core.regions import AwsRegion
from components.core.shaped import resource_id, shaped_str
from components.core.spec import Spec
from components.storage.spec import bucket_name_problem


class S3ModelSource(Spec):
    prefix: str = Field(min_length=1)
    # The stack's model bucket and region when absent.
    bucket: str | None = None
    region: AwsRegion | None = None

    @field_validator("bucket")
    @classmethod
    def _bucket_name(cls, value: str | None) -> str | None:
        problem = bucket_name_problem(value) if value is not None else None
        if problem:
            raise ValueError(f"S3 bucket names {problem}")
        return value

    @field_validator("prefix")
    @classmethod
    def _a_key_prefix(cls, value: str) -> str:
        if value.lower().startswith("s3://"):
            bucket, _, key = value[len("s3://") :].partition("/")
            raise ValueError(
                f"it is an S3 URI, while prefix is the key within the bucket: write "
                f"bucket: {bucket} and prefix: {key or '<folder of the weights>'}"
            )
        return value


class FsxModelSource(Spec):
    file_system_id: resource_id("fs", "an FSx file system ID")
    # FSx for Lustre's own shapes (SageMaker API reference, ClusterFsxLustreConfig).
    dns_name: (
        shaped_str(
            r"(fs|fc)i?-[0-9a-f]{8,}\..{4,253}",
            "must be the file system's DNS name, e.g. fs-0123456789abcdef0.fsx.us-east-1."
            "amazonaws.com",
            max_length=275,
        )
        | None
    ) = None
    mount_name: (
        shaped_str(
            r"[A-Za-z0-9_-]{1,8}",
            "must be the file system's mount name: 1 to 8 letters, digits, '_' or '-' "
            "(`aws fsx describe-file-systems` shows it as MountName)",
        )
        | None
    ) = None
    path: str | None = None


class SecretKeyRef(Spec):
    name: KubernetesName
    key: str = Field(min_length=1)


class HuggingFaceModelSource(Spec):
    model_id: shaped_str(
        r"^[a-zA-Z0-9_.-]+/[a-zA-Z0-9_.-]+$",
        "must be a Hugging Face model id, <owner>/<name> such as meta-llama/Llama-3.3-70B-Instruct",
    )
    commit_sha: (
        shaped_str(
            r"^[0-9a-f]{40}$",
            "must be a full 40-character commit hash (lowercase hex), not a branch or tag name",
        )
        | None
    ) = Field(None, alias="commitSHA")
    # Name of a secret stack config key holding the token; the endpoint stores it in a
    # Kubernetes Secret of its own.
    token_config_key: str | None = None
    # Or an existing Kubernetes Secret holding it.
    token_secret_ref: SecretKeyRef | None = None

    @model_validator(mode="after")
    def _one_token_source(self) -> HuggingFaceModelSource:
        if self.token_config_key and self.token_secret_ref:
            raise ValueError("set tokenConfigKey or tokenSecretRef, not both")
        return self


class ModelSource(Spec):
    s3: S3ModelSource | None = None
    fsx: FsxModelSource | None = None
    hugging_face: HuggingFaceModelSource | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> ModelSource:
        sources = {"s3": self.s3, "fsx": self.fsx, "huggingFace": self.hugging_face}
        chosen = [alias for alias, source in sources.items() if source is not None]
        if len(chosen) != 1:
            raise ValueError(
                f"set exactly one of s3, fsx or huggingFace (got {', '.join(chosen) or 'none'})"
            )
        return self
