"""The typed description of one DPD endpoint: what a user writes, with the operator's defaults.

Keys are camelCase, and keep the CRD's names where the CRD has one (`modelName`,
`instanceType`, `routingThreshold`, `replicas`, ...). This module checks the shape of each
value; rules that relate several values live in `endpoint_checks`.
"""

from __future__ import annotations

import unicodedata
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import ByteSize, Field, ValidatorFunctionWrapHandler, field_validator, model_validator

from components.cluster.instance_types import DPD_INSTANCE_TYPES
from components.core.kubernetes_names import EnvVarName, LabelKey, LabelValue, Quantity
from components.core.regions import AwsRegion
from components.core.shaped import resource_id, shaped_str
from components.core.spec import Spec, numbers_as_text
from components.core.units import GIB, binary_size_problem
from components.endpoint.autoscaling import Role, RoleAutoscaling
from components.model.architecture import ModelArchitecture
from components.model.catalog import MODEL_CATALOG
from components.model.hf_config import HuggingFaceConfigFile
from components.network.spec import is_az_id, is_az_name
from components.storage.spec import bucket_name_problem

DLC_IMAGE = "public.ecr.aws/deep-learning-containers/vllm:server-hyperpod-cuda-v1.1"
LMCACHE_IMAGE = "lmcache/vllm-openai:v0.4.3"
# Both carry LMCache 0.4.3, vLLM 0.19.0, NIXL 1.0.0 and the EFA libfabric provider.
DPD_IMAGES = (DLC_IMAGE, LMCACHE_IMAGE)

RoutingStrategy = Literal["prefixaware", "kvaware", "session", "roundrobin"]

# What Kubernetes accepts as an object name or namespace (RFC 1123 label).
K8S_NAME = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
# The CRD's own patterns. modelName's has no end anchor, so it only constrains how the
# name starts (which is what lets "Llama-3.3-70B-Instruct" through); `(?s:.*)` ends it here, as
# shaped_str matches whole values.
MODEL_NAME = r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}(?s:.*)"
ENDPOINT_NAME = r"^$|^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$"
HF_MODEL_ID = r"^[a-zA-Z0-9_.-]+/[a-zA-Z0-9_.-]+$"
KubernetesName = shaped_str(
    K8S_NAME,
    "must be a Kubernetes name: at most 63 lowercase letters, digits or '-', starting and "
    "ending with a letter or digit",
    max_length=63,
)
SageMakerEndpointName = shaped_str(
    ENDPOINT_NAME,
    "must be a SageMaker endpoint name: at most 63 letters, digits or '-', starting and "
    "ending with a letter or digit",
    max_length=63,
)
HF_COMMIT = r"^[0-9a-f]{40}$"
INT32_MAX = 2**31 - 1
# The operator's --max-num-seqs on each role's pods when the role sets none.
OPERATOR_PREFILL_MAX_NUM_SEQS = 16
OPERATOR_DECODE_MAX_NUM_SEQS = 32
# --gpu-memory-utilization: the seed's DPD example and tuning table give 0.75, leaving the
# decoder room for the PD buffer and the prefiller for its activations. The one default of
# every endpoint and planner scenario.
GPU_MEMORY_UTILIZATION = 0.75
# The percentiles an SLO may be stated at (vLLM's benchmarks print p50, p90, p95 and p99).
SloPercentile = Literal[50, 90, 95, 99]


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
        HF_MODEL_ID,
        "must be a Hugging Face model id, <owner>/<name> such as meta-llama/Llama-3.3-70B-Instruct",
    )
    commit_sha: (
        shaped_str(
            HF_COMMIT,
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


class RoleSpec(Spec):
    replicas: int = Field(1, ge=1, le=INT32_MAX)
    gpus: int = Field(8, ge=1)
    # None keeps the operator's default: 16 on prefill, 32 on decode.
    max_num_seqs: int | None = Field(None, ge=1)
    # None inherits the endpoint's gpuMemoryUtilization.
    gpu_memory_utilization: float | None = Field(None, gt=0, le=1)
    args: list[str] = []
    node_selector: dict[LabelKey, LabelValue] = {}
    # With autoscaling, `replicas` is the initial count.
    autoscaling: RoleAutoscaling | None = None

    _numbers_as_text = field_validator("node_selector", mode="before")(numbers_as_text)

    @property
    def max_replicas(self) -> int:
        """The most pods of this role there can be."""
        return self.autoscaling.max_replicas if self.autoscaling else self.replicas

    @property
    def min_replicas(self) -> int:
        return self.autoscaling.min_replicas if self.autoscaling else self.replicas


class KvCache(Spec):
    enable_l1_cache: bool = Field(True, alias="enableL1Cache")
    l2_cache_backend: Literal["redis", "tieredstorage"] | None = Field(None, alias="l2CacheBackend")
    l2_cache_local_url: str | None = Field(None, alias="l2CacheLocalUrl")

    @field_validator("l2_cache_local_url")
    @classmethod
    def _a_url(cls, value: str | None) -> str | None:
        if value is not None:
            parts = urlsplit(value)
            # A Unix socket URL has a path and no host.
            if not (parts.scheme and (parts.hostname or (parts.scheme == "unix" and parts.path))):
                raise ValueError("must be a URL with a scheme and a host, e.g. redis://redis:6379")
        return value


class ModelMetrics(Spec):
    path: (
        shaped_str(
            r"^/[a-zA-Z0-9\-_./]*$",
            "must be a URL path of letters, digits, '-', '_', '.' or '/', starting with '/', "
            "such as /metrics",
        )
        | None
    ) = None
    port: int | None = Field(None, ge=1024, le=65535)


class Metrics(Spec):
    enabled: bool = True
    metrics_scrape_interval_seconds: int | None = Field(None, ge=5, le=300)
    model_metrics: ModelMetrics | None = None


class TopologySpec(Spec):
    same_az: bool = Field(True, alias="sameAZ")
    # One of the stack's AZs, by ID or by name; the manifest carries the name the deploying
    # account gives it, the one node labels carry (components/network/zones.py).
    availability_zone: str | None = None
    placement_group: str | None = None

    @field_validator("availability_zone")
    @classmethod
    def _zone(cls, value: str | None) -> str | None:
        if value is not None and not (is_az_id(value) or is_az_name(value)):
            raise ValueError(
                f"{value!r} is neither an AZ ID (usw2-az2) nor an AZ name (us-west-2b)"
            )
        return value


class CustomCertificateConfig(Spec):
    """An ACM certificate the operator attaches to the endpoint's load balancer instead of the
    one it issues itself (AWS: "Custom certificates and Route 53 DNS management for HyperPod
    Inference"). The certificate must be Issued, in the stack's region and account (checked in
    infra/region_checks.py); the patterns are the CRD's."""

    acm_arn: shaped_str(
        r"^arn:aws:acm:[a-z0-9-]+:[0-9]{12}:certificate/[a-fA-F0-9-]+$",
        "must be an ACM certificate ARN such as "
        "arn:aws:acm:us-west-2:123456789012:certificate/0123abcd-4567-89ef-0123-456789abcdef",
    )
    domain_name: shaped_str(
        r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$",
        "must be a lowercase DNS name such as inference.example.com: dot-separated labels of "
        "letters, digits or '-', at most 253 characters",
        max_length=253,
    )


class TlsConfig(Spec):
    custom_certificate_config: CustomCertificateConfig


class Slo(Spec):
    """The latency an endpoint's users are promised, at `percentile` (90 unless set): the
    time to first token, and the time between two output tokens (vLLM's inter-token
    latency, what a streaming user feels).

    The planner predicts against it and the SLO alerts fire above it (at the 90th).
    """

    ttft_ms: float | None = Field(None, gt=0)
    tpot_ms: float | None = Field(None, gt=0)
    percentile: SloPercentile = 90


class Workload(Spec):
    """The traffic an endpoint expects; each figure is optional and checks what it can."""

    typical_input_tokens: int | None = Field(None, ge=1)
    output_tokens: int | None = Field(None, ge=1)
    requests_per_second: float | None = Field(None, gt=0)
    concurrency: int | None = Field(None, ge=1)
    slo: Slo | None = None


# SageMaker's tag rules (API reference, Tag; the same in cfn-lint's AWS::SageMaker::Cluster
# schema): keys 1 to 128 and values up to 256 characters of letters, digits, whitespace and
# _ . : / = + - @; the aws: prefix is AWS's own; at most 50 tags on a resource.
TAGS_MAX = 50
TAG_KEY_MAX = 128
TAG_VALUE_MAX = 256
TAG_PUNCTUATION = set("_.:/=+-@")


def _tag_text_problem(text: str, what: str, most: int) -> str | None:
    if len(text) > most:
        return f"{what} {text[:40]!r}... is {len(text)} characters; SageMaker takes at most {most}"
    odd = sorted({c for c in text if unicodedata.category(c)[0] not in "LNZ"} - TAG_PUNCTUATION)
    if odd:
        return (
            f"{what} {text!r} holds {''.join(odd)!r}; SageMaker takes letters, digits, spaces "
            "and _ . : / = + - @"
        )
    if text.lower().startswith("aws:"):
        return f"{what} {text!r} starts with 'aws:', which AWS reserves for its own tags"
    return None


def tag_problems(tags: dict[str, str]) -> list[str]:
    problems = [f"has {len(tags)} tags; SageMaker takes at most {TAGS_MAX}"] * (
        len(tags) > TAGS_MAX
    )
    for key, value in tags.items():
        if not key:
            problems.append("has an empty key; SageMaker tag keys have 1 to 128 characters")
        problems += [
            p
            for p in (
                _tag_text_problem(key, "key", TAG_KEY_MAX),
                _tag_text_problem(value, f"the value of {key}", TAG_VALUE_MAX),
            )
            if p
        ]
    return problems


# An OCI image reference (the grammar of distribution/reference, which containerd and the
# kubelet parse): [registry[:port]/]path[:tag][@digest], path components lowercase.
_LABEL = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?"
_DOMAIN = rf"{_LABEL}(?:\.{_LABEL})*(?::[0-9]+)?"
_PATH = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_TAG = r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
IMAGE_REFERENCE = rf"(?:{_DOMAIN}/)?{_PATH}(?:/{_PATH})*(?::{_TAG})?(?:@{_DIGEST})?"
# distribution/reference's NameTotalLengthMax.
IMAGE_NAME_MAX = 255
# ELBv2's HealthCheckPath: a URL path of at most 1024 characters (RFC 3986 path characters,
# and an optional query); a space or a '#' makes no request the target can answer.
HEALTH_CHECK_PATH = r"/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*(?:\?[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*)?"
# The CRD's invocationEndpoint is "the path after http://<host>:<port>/" (its description in
# operator 3.2's CRD): the same RFC 3986 path characters, with no scheme or host before them.
INVOCATION_PATH = (
    r"(?![A-Za-z][A-Za-z0-9+.-]*://)"
    r"[A-Za-z0-9\-._~!$&'()*+,;=:@%/]+(?:\?[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*)?"
)


class DpdEndpointSpec(Spec):
    name: KubernetesName
    namespace: KubernetesName = "default"
    endpoint_name: SageMakerEndpointName | None = None
    model_name: shaped_str(
        MODEL_NAME,
        "must be at most 63 characters, starting with a letter or digit, such as "
        "Llama-3.3-70B-Instruct (the operator's rule)",
        max_length=63,
    )
    model_source: ModelSource
    instance_type: str
    image: shaped_str(
        IMAGE_REFERENCE,
        "must be a container image reference such as "
        "public.ecr.aws/deep-learning-containers/vllm:server-hyperpod-cuda-v1.1: an optional "
        "registry, a lowercase repository path, an optional :tag and @sha256:digest",
    ) = DLC_IMAGE
    tensor_parallel_size: Literal[1, 2, 4, 8] = 8
    max_model_len: int = Field(ge=1)
    gpu_memory_utilization: float = Field(GPU_MEMORY_UTILIZATION, gt=0, le=1)
    prefill: RoleSpec = RoleSpec()
    decode: RoleSpec = RoleSpec()
    routing_threshold: int = Field(4096, ge=0, le=INT32_MAX)
    routing_strategy: RoutingStrategy = "prefixaware"
    pd_buffer_size: Annotated[ByteSize, Field(gt=0)] = ByteSize(8 * GIB)
    kv_cache: KvCache = KvCache()
    # None keeps the operator's defaults (/ping and "invocations").
    health_check_path: (
        shaped_str(
            HEALTH_CHECK_PATH,
            "must be a URL path starting with '/', of at most 1024 characters, without spaces "
            'or characters a URL must escape (such as # < > " { })',
            max_length=1024,
        )
        | None
    ) = None
    invocation_endpoint: (
        shaped_str(
            INVOCATION_PATH,
            "must be the path the operator appends to http://<host>:<port>/, such as "
            "v1/chat/completions: no scheme or host, no spaces or characters a URL must escape",
        )
        | None
    ) = None
    metrics: Metrics = Metrics()
    topology_spec: TopologySpec | None = None
    # None: the operator's own certificate, kept in the stack's TLS bucket.
    tls_config: TlsConfig | None = None
    tags: dict[str, str] = {}
    environment_variables: dict[EnvVarName, str] = {}
    worker_args: list[str] = []
    # The operator ignores worker resources for DPD pods, but the CRD requires them.
    worker_resources: dict[str, Quantity] = {"cpu": "96", "memory": "1024Gi"}
    # Any other InferenceEndpointConfig spec field, merged into what the settings above
    # produce; checked against the CRD schema.
    spec_overrides: dict[str, Any] = {}
    # What sizes the KV cache: a catalog id, explicit fields, or a Hugging Face config.json.
    # None infers the catalog id from modelName (see endpoint_architecture). Explicit fields
    # come last: unknown-key suggestions are taken from the last form.
    architecture: str | HuggingFaceConfigFile | ModelArchitecture | None = None
    workload: Workload | None = None

    @property
    def decode_max_num_seqs(self) -> int:
        if self.decode.max_num_seqs is None:
            return OPERATOR_DECODE_MAX_NUM_SEQS
        return self.decode.max_num_seqs

    @property
    def prefill_max_num_seqs(self) -> int:
        if self.prefill.max_num_seqs is None:
            return OPERATOR_PREFILL_MAX_NUM_SEQS
        return self.prefill.max_num_seqs

    def roles(self) -> dict[Role, tuple[RoleSpec, int]]:
        """Each role by its name, with the --max-num-seqs its pods run."""
        return {
            "prefill": (self.prefill, self.prefill_max_num_seqs),
            "decode": (self.decode, self.decode_max_num_seqs),
        }

    @property
    def decode_gpu_memory_utilization(self) -> float:
        if self.decode.gpu_memory_utilization is None:
            return self.gpu_memory_utilization
        return self.decode.gpu_memory_utilization

    @field_validator("tags")
    @classmethod
    def _sagemaker_tags(cls, value: dict[str, str]) -> dict[str, str]:
        problems = tag_problems(value)
        if problems:
            raise ValueError("; ".join(problems))
        return value

    @field_validator("image")
    @classmethod
    def _image_name_length(cls, value: str) -> str:
        name = value.split("@", 1)[0]
        if len(name) > IMAGE_NAME_MAX:
            raise ValueError(f"is {len(name)} characters; an image name takes at most 255")
        return value

    @field_validator("instance_type")
    @classmethod
    def _dpd_instance_type(cls, value: str) -> str:
        if value not in DPD_INSTANCE_TYPES:
            raise ValueError(f"DPD runs only on {', '.join(DPD_INSTANCE_TYPES)}")
        return value

    @field_validator("pd_buffer_size", mode="before")
    @classmethod
    def _binary_units(cls, value: Any) -> Any:
        problem = binary_size_problem(value) if isinstance(value, str) else None
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("architecture", mode="wrap")
    @classmethod
    def _architecture_form(cls, value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        # Pick the form from the value's shape, so problems name the user's keys
        # (architecture.kvHeads) rather than pydantic's union branches.
        if isinstance(value, str):
            if value not in MODEL_CATALOG:
                raise ValueError(
                    f"must be a catalog id ({', '.join(MODEL_CATALOG)}), explicit fields, or "
                    "{configFile: <path to config.json>, parameters: <count>}"
                )
            return value
        if isinstance(value, dict):
            form = HuggingFaceConfigFile if "configFile" in value else ModelArchitecture
            return form.model_validate(value)
        return handler(value)

    _numbers_as_text = field_validator("environment_variables", "tags", mode="before")(
        numbers_as_text
    )
