"""Where an endpoint's weights come from: an S3 prefix, an FSx for Lustre file system, a
Hugging Face model or a volume of the pod, in the shapes S3, FSx and Hugging Face take, and the
CRD's `modelSourceConfig` they write."""

from typing import Annotated, Any

from pydantic import AfterValidator, Field, field_validator, model_validator

from components.core.findings import Finding, warning
from components.core.kubernetes_names import KubernetesName
from components.core.placeholders import holds_placeholder
from components.core.regions import AwsRegion
from components.core.shaped import resource_id, shaped_str
from components.core.spec import Spec
from components.core.terminal_text import one_line
from components.storage.spec import bucket_name_problem

# Characters AWS says to avoid in object keys, as clients handle them differently ("Creating
# object key names"): S3 takes them, so they are warned about, not refused.
S3_KEY_AVOID = '\\{}^%`]">[~<#|'
# An S3 key is at most 1,024 bytes of UTF-8, the prefix among them (same page).
S3_KEY_MAX_BYTES = 1024


def folder_problem(path: str) -> str | None:
    """Why a folder of weights (an S3 prefix, an FSx path) cannot be read as one: an invisible
    character no terminal shows, or a folder named '', '.' or '..', which Mountpoint for S3 does
    not show (awslabs/mountpoint-s3, doc/SEMANTICS.md)."""
    hidden = [one_line(c) for c in path if one_line(c) != c]
    if hidden:
        return f"holds {hidden[0]}, a control or invisible formatting character"
    folders = path.strip("/").split("/")
    if any(folder in ("", ".", "..") for folder in folders):
        return "has an empty, '.' or '..' folder name: give each folder between '/' a name"
    return None


def _a_folder(value: str) -> str:
    problem = folder_problem(value)
    if problem:
        raise ValueError(f"{problem}; a path reads like /models/Llama-3.3-70B-Instruct")
    return value


# A folder of weights on a file system or a volume.
FolderPath = Annotated[str, AfterValidator(_a_folder)]


class S3ModelSource(Spec):
    # None: the weights are the whole bucket (the CRD's modelLocation is optional).
    prefix: str | None = Field(None, min_length=1)
    # The stack's model bucket and region when absent.
    bucket: str | None = None
    region: AwsRegion | None = None

    @property
    def folder(self) -> str:
        return f"{self.prefix.strip('/')}/" if self.prefix else ""

    @field_validator("bucket")
    @classmethod
    def _bucket_name(cls, value: str | None) -> str | None:
        problem = bucket_name_problem(value) if value and not holds_placeholder(value) else None
        if problem:
            raise ValueError(f"S3 bucket names {problem}")
        return value

    @field_validator("prefix")
    @classmethod
    def _a_key_prefix(cls, value: str | None) -> str | None:
        if value is None:
            return value
        if value.lower().startswith("s3://"):
            bucket, _, key = value[len("s3://") :].partition("/")
            raise ValueError(
                f"it is an S3 URI, while prefix is the key within the bucket: write "
                f"bucket: {bucket} and prefix: {key or '<folder of the weights>'}"
            )
        problem = folder_problem(value)
        if problem:
            raise ValueError(f"{problem}; a prefix reads like models/Llama-3.3-70B-Instruct")
        if len(value.encode()) > S3_KEY_MAX_BYTES:
            raise ValueError(f"is over the {S3_KEY_MAX_BYTES:,} bytes of an S3 key")
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
    path: FolderPath | None = None


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
    def _one_token_source(self) -> "HuggingFaceModelSource":
        if self.token_config_key and self.token_secret_ref:
            raise ValueError("set tokenConfigKey or tokenSecretRef, not both")
        return self


class KubernetesVolumeModelSource(Spec):
    """Weights already on a volume of the pod (modelSourceType kubernetesVolume), such as one
    of `kubernetes.volumes`; `path` is the CRD's modelLocation on it."""

    path: FolderPath | None = None


class ModelSource(Spec):
    s3: S3ModelSource | None = None
    fsx: FsxModelSource | None = None
    hugging_face: HuggingFaceModelSource | None = None
    kubernetes_volume: KubernetesVolumeModelSource | None = None
    # The CRD's prefetchEnabled: the operator copies the weights into the node's memory first
    # (for a model that fits it). None leaves the operator's default, false.
    prefetch_enabled: bool | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> "ModelSource":
        sources = {
            "s3": self.s3,
            "fsx": self.fsx,
            "huggingFace": self.hugging_face,
            "kubernetesVolume": self.kubernetes_volume,
        }
        chosen = [alias for alias, source in sources.items() if source is not None]
        if len(chosen) != 1:
            raise ValueError(
                "set exactly one of s3, fsx, huggingFace or kubernetesVolume (got "
                f"{', '.join(chosen) or 'none'})"
            )
        return self


def check_model_source(source: ModelSource) -> list[Finding]:
    """What S3 takes but hurts: a prefix with characters AWS says to avoid, or a space at an end,
    which S3 keeps, people do not see, and a mount option's reader trims (the Mountpoint CSI
    driver's `ParseArgs` trims each option's value). Fields are relative to the endpoint."""
    prefix = source.s3.prefix if source.s3 else None
    if prefix is None:
        return []
    found = []
    avoided = sorted(set(prefix) & set(S3_KEY_AVOID))
    if avoided:
        found.append(
            warning(
                "s3-key-characters-to-avoid",
                "modelSource.s3.prefix",
                f"holds {' '.join(avoided)}, which AWS says to avoid in S3 keys, since tools "
                "handle them differently; letters, digits, '/' and ! - _ . * ' ( ) are safe "
                "everywhere",
            )
        )
    if prefix != prefix.strip():
        found.append(
            warning(
                "s3-key-space-at-an-end",
                "modelSource.s3.prefix",
                f"{prefix!r} starts or ends with a space, which S3 keeps and a mount option's "
                "reader trims; drop it",
            )
        )
    return found


def source_config(
    source: ModelSource, *, model_bucket: str | None, region: str, stack_token: tuple[str, str]
) -> dict[str, Any]:
    """The CRD's modelSourceConfig. An S3 source without bucket or region takes the stack's
    (`model_bucket`, `region`); a Hugging Face token from a stack config key is read from the
    Secret the endpoint keeps it in (`stack_token`: its name and key)."""
    out = _storage(source, model_bucket, region, stack_token)
    if source.prefetch_enabled is not None:
        out["prefetchEnabled"] = source.prefetch_enabled
    return out


def _storage(
    source: ModelSource, model_bucket: str | None, region: str, stack_token: tuple[str, str]
) -> dict[str, Any]:
    if source.s3 is not None:
        location = {"modelLocation": source.s3.prefix} if source.s3.prefix else {}
        return {
            "modelSourceType": "s3",
            **location,
            "s3Storage": {
                "bucketName": source.s3.bucket or model_bucket,
                "region": source.s3.region or region,
            },
        }
    if source.fsx is not None:
        fsx = source.fsx
        storage = {"fileSystemId": fsx.file_system_id}
        if fsx.dns_name:
            storage["dnsName"] = fsx.dns_name
        if fsx.mount_name:
            storage["mountName"] = fsx.mount_name
        out: dict[str, Any] = {"modelSourceType": "fsx"}
        if fsx.path:
            out["modelLocation"] = fsx.path
        return {**out, "fsxStorage": storage}
    if source.kubernetes_volume is not None:
        path = source.kubernetes_volume.path
        return {"modelSourceType": "kubernetesVolume", **({"modelLocation": path} if path else {})}
    hf = source.hugging_face
    assert hf is not None  # ModelSource guarantees exactly one source
    model: dict[str, Any] = {"modelId": hf.model_id}
    if hf.commit_sha:
        model["commitSHA"] = hf.commit_sha
    if hf.token_secret_ref:
        model["tokenSecretRef"] = {"name": hf.token_secret_ref.name, "key": hf.token_secret_ref.key}
    elif hf.token_config_key:
        name, key = stack_token
        model["tokenSecretRef"] = {"name": name, "key": key}
    return {"modelSourceType": "huggingface", "huggingFaceModel": model}
