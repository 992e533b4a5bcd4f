"""The typed description of one endpoint, with the operator's defaults. Keys keep the CRD's
names where it has one; parts with a concept of their own have their own modules."""

import re
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import ByteSize, Field, ValidatorFunctionWrapHandler, field_validator, model_validator
from pydantic_core.core_schema import ValidationInfo

from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.core.findings import Finding, warning
from components.core.kubernetes_names import EnvVarName, KubernetesName, ValueFromRule
from components.core.shaped import shaped_str
from components.core.spec import Spec, numbers_as_text
from components.core.units import GIB, binary_size_problem
from components.endpoint.adopted import with_pod_settings
from components.endpoint.autoscaling import INT32_MAX, Role
from components.endpoint.engines.engine import VLLM, EngineName, engine_port
from components.endpoint.image import DLC_IMAGE, ImageReference
from components.endpoint.load_balancer import LoadBalancer
from components.endpoint.model_source import ModelSource
from components.endpoint.placement import placed_types
from components.endpoint.pod import ModelCacheConfig, PodCustomizations
from components.endpoint.probes import Probes
from components.endpoint.roles import (
    MOST_ARGS,
    OPERATOR_DECODE_MAX_NUM_SEQS,
    OPERATOR_PREFILL_MAX_NUM_SEQS,
    RoleSpec,
    TopologySpec,
    vllm_default_max_num_seqs,
)
from components.endpoint.schema import crd_shaped
from components.endpoint.tags import tag_problems
from components.endpoint.worker import (
    ModelInvocationPort,
    ModelVolumeMount,
    RequestLimits,
    WorkerResources,
    default_worker_resources,
)
from components.model.architecture import ModelArchitecture
from components.model.catalog import MODEL_CATALOG
from components.model.hf_config import HuggingFaceConfigFile
from components.storage.spec import TLS_PREFIX

RoutingStrategy = Literal["prefixaware", "kvaware", "session", "roundrobin"]

# modelName. The CRD's pattern lacks an end anchor, so the API server checks only the first
# character; anchoring it (as aws/sagemaker-hyperpod-cli does) would refuse the dotted names AWS's
# guides deploy (`Llama-3.3-70B-Instruct`). The name is also a Hugging Face repository name
# (nextSteps' `hf download`) and a metrics label, so: huggingface_hub `validate_repo_id`'s
# characters, starting and ending with a letter or digit, at most 63 (a Kubernetes label value).
MODEL_NAME = r"[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?"
# --gpu-memory-utilization: the seed's DPD tuning gives 0.75, leaving the decoder room for the PD
# buffer. A colocated pod holds none and keeps vLLM's own 0.9, as AWS's colocated samples do.
GPU_MEMORY_UTILIZATION = 0.75
VLLM_GPU_MEMORY_UTILIZATION = 0.9
# The percentiles an SLO may be stated at (vLLM's benchmarks print p50, p90, p95 and p99).
SloPercentile = Literal[50, 90, 95, 99]
SageMakerEndpointName = shaped_str(
    r"^$|^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$",
    "must be a SageMaker endpoint name: at most 63 letters, digits or '-', starting and "
    "ending with a letter or digit",
    max_length=63,
)


class KvCache(Spec):
    enable_l1_cache: bool = Field(True, alias="enableL1Cache")
    # None: on when l2CacheBackend is set. False keeps the L2 settings written but switched off.
    enable_l2_cache: bool | None = Field(None, alias="enableL2Cache")
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


class CustomCertificateConfig(Spec):
    """An ACM certificate the operator attaches to the load balancer instead of its own (AWS,
    "Custom certificates and Route 53 DNS management for HyperPod Inference")."""

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
    custom_certificate_config: CustomCertificateConfig | None = None
    # Where the operator writes the certificate it issues; None: the bucket its install names.
    tls_certificate_output_s3_uri: (
        shaped_str(
            r"^s3://([^/]+)/?(.*)$",
            "must be an S3 URI, s3://<bucket>/<prefix>, such as s3://hyperpod-tls-team/certs",
        )
        | None
    ) = None


def check_tls_output(tls: TlsConfig | None) -> list[Finding]:
    """A certificate bucket the operator's managed policy cannot write: its S3 rights cover
    `hyperpod-tls*` buckets only (AmazonSageMakerHyperPodInferenceAccess)."""
    uri = tls.tls_certificate_output_s3_uri if tls else None
    bucket = uri.removeprefix("s3://").split("/", 1)[0] if uri else None
    if bucket is None or bucket.startswith(TLS_PREFIX):
        return []
    return [
        warning(
            "tls-output-bucket",
            "tlsConfig.tlsCertificateOutputS3Uri",
            f"{bucket!r} is not a {TLS_PREFIX}* bucket, which is all the operator's managed "
            "policy (AmazonSageMakerHyperPodInferenceAccess) may write; its execution role "
            "needs a grant of its own for it",
        )
    ]


MAX_SLO_MS = 3_600_000
MAX_TOKENS = 10_000_000
# A million requests a second, or clients, is beyond any one endpoint.
MAX_LOAD = 1_000_000


class Slo(Spec):
    """The latency promised at `percentile`: time to first token, and between two output tokens
    (vLLM's inter-token latency). The planner predicts against it; the SLO alerts fire above it."""

    # An hour at most: a limit beyond it promises nothing, and the charts scale to it.
    ttft_ms: float | None = Field(None, gt=0, le=MAX_SLO_MS)
    tpot_ms: float | None = Field(None, gt=0, le=MAX_SLO_MS)
    percentile: SloPercentile = 90


class Workload(Spec):
    # No model's context reaches 10 million tokens (Llama 4 Scout's is the longest, 10M).
    typical_input_tokens: int | None = Field(None, ge=1, le=MAX_TOKENS)
    output_tokens: int | None = Field(None, ge=1, le=MAX_TOKENS)
    requests_per_second: float | None = Field(None, gt=0, le=MAX_LOAD)
    concurrency: int | None = Field(None, ge=1, le=MAX_LOAD)
    # How far lengths stray from the typical ones: input and output tokens spread evenly over
    # typical x (1 +/- lengthSpread). `vllm bench serve --random-range-ratio r` is r; SGLang's
    # bench (lengths from r x L to L) is (1 - r) / (1 + r) around (1 + r) x L / 2.
    length_spread: float = Field(0.0, ge=0, le=1)
    slo: Slo | None = None


# ELBv2's HealthCheckPath: a URL path of at most 1024 characters (RFC 3986 path characters,
# and an optional query); a space or a '#' makes no request the target can answer.
HEALTH_CHECK_PATH = r"/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*(?:\?[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*)?"
# The CRD's invocationEndpoint is "the path after http://<host>:<port>/" (its description in
# operator 3.2's CRD): the same RFC 3986 path characters, with no scheme or host before them.
INVOCATION_PATH = (
    r"(?![A-Za-z][A-Za-z0-9+.-]*://)"
    r"[A-Za-z0-9\-._~!$&'()*+,;=:@%/]+(?:\?[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]*)?"
)


class EndpointSpec(Spec):
    name: KubernetesName
    namespace: KubernetesName = "default"
    # Adopted from a live object (`hyperpod-dpd import-endpoint`): it keeps the live names, so
    # the first `pulumi up` after `pulumi import` updates it in place.
    adopted: bool = False
    # How a change the operator cannot make in place reaches callers (generation.py). None:
    # keepName when a SageMaker endpoint is named, whose callers hold that name; else newName.
    rollout: Literal["keepName", "newName"] | None = None
    # How long the old generation keeps serving after a swap moved the address; None: from the
    # workload (generation.drain_seconds).
    drain_seconds: int | None = Field(None, ge=0, le=86_400)
    endpoint_name: SageMakerEndpointName | None = None
    model_name: str
    model_source: ModelSource
    instance_type: str
    # The model server the image runs; DPD runs vLLM only (engines/engine.py).
    engine: EngineName = VLLM
    image: ImageReference = DLC_IMAGE
    # None leaves --max-model-len out, and vLLM serves the model's own context length (its
    # config.json); sizing and the predictions then take that length too.
    max_model_len: int | None = Field(None, ge=1)
    prefill: RoleSpec = RoleSpec()
    decode: RoleSpec = RoleSpec()
    # The aggregated (colocated) mode: pods that prefill and decode alike, and no pdSpec. None
    # is DPD, with the prefill and decode roles above (components/endpoint/serving_mode.py).
    serving: RoleSpec | None = None
    # Unset: a whole p5 for DPD, all of a colocated pod's GPUs.
    tensor_parallel_size: Literal[1, 2, 4, 8] = Field(
        default_factory=lambda done: 8 if done.get("serving") is None else done["serving"].gpus
    )
    # Written as --gpu-memory-utilization on DPD always, on a colocated pod only when set.
    gpu_memory_utilization: float = Field(
        default_factory=lambda done: (
            GPU_MEMORY_UTILIZATION if done.get("serving") is None else VLLM_GPU_MEMORY_UTILIZATION
        ),
        gt=0,
        le=1,
    )
    routing_threshold: int = Field(4096, ge=0, le=INT32_MAX)
    routing_strategy: RoutingStrategy = "prefixaware"
    # intelligentRoutingSpec.enabled. None: as the mode has it (always with DPD, whose router
    # it is; on an aggregated endpoint when routingStrategy is set). False writes the spec
    # switched off, as AWS's samples keep a strategy beside `enabled: false`.
    routing_enabled: bool | None = None
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
    # Variables whose value Kubernetes reads from elsewhere (a Secret's key, a ConfigMap's, a
    # field of the pod), as the CRD's valueFrom: the way to hand the pods a credential.
    environment_from: dict[
        EnvVarName, Annotated[crd_shaped("worker.environmentVariables[].valueFrom"), ValueFromRule]
    ] = {}
    worker_args: list[str] = Field([], max_length=MOST_ARGS)
    # CPU and memory; the GPUs are the roles'. Unset: as the mode needs (worker.py), read
    # from instanceType and serving, validated above it.
    worker_resources: WorkerResources = Field(
        default_factory=lambda done: default_worker_resources(
            done["instance_type"], done["serving"].gpus if done["serving"] else None
        )
    )
    model_invocation_port: ModelInvocationPort = ModelInvocationPort()
    model_volume_mount: ModelVolumeMount = ModelVolumeMount()
    # The container's entrypoint; None runs the image's. With vLLM its flags are held to the
    # same rules as workerArgs.
    command: list[str] | None = Field(None, max_length=MOST_ARGS)
    # Where the pods may run beside instanceType, which sizes them: the CRD's instanceTypes (in
    # order of preference) or nodeAffinity, each written in place of instanceType.
    instance_types: list[str] | None = Field(None, min_length=1)
    node_affinity: crd_shaped("nodeAffinity") | None = None
    probes: Probes | None = None
    request_limits: RequestLimits | None = None
    # The worker container's working directory; None keeps the image's.
    working_dir: str | None = Field(None, min_length=1)
    load_balancer: LoadBalancer | None = None
    kubernetes: PodCustomizations | None = None
    model_cache_config: ModelCacheConfig | None = None
    # Any other InferenceEndpointConfig spec field, merged into what the settings above
    # produce; checked against the CRD schema.
    spec_overrides: dict[str, Any] = {}
    # What sizes the KV cache; None infers the catalog id from modelName. Explicit fields come
    # last: unknown-key suggestions are taken from the last form.
    architecture: str | HuggingFaceConfigFile | ModelArchitecture | None = None
    workload: Workload | None = None

    @property
    def aggregated(self) -> bool:
        return self.serving is not None

    @property
    def renames(self) -> bool:
        """Whether a change the operator cannot make in place gets new names (rollout newName)."""
        if self.adopted or self.rollout is not None:
            return self.rollout == "newName" and not self.adopted
        return self.endpoint_name is None and self.intelligent_routing

    @property
    def intelligent_routing(self) -> bool:
        """Whether the manifest has the operator route: always with DPD, whose router is the
        operator's; on an aggregated endpoint only when routingStrategy is set."""
        if not self.aggregated or self.routing_enabled is not None:
            return self.routing_enabled is not False
        return "routing_strategy" in self.model_fields_set

    @property
    def kv_cache_written(self) -> bool:
        """Whether the manifest has kvCacheSpec: always with DPD, as LMCache's PD backend
        moves the KV; on an aggregated endpoint only when kvCache is set."""
        return not self.aggregated or "kv_cache" in self.model_fields_set

    @property
    def container_port(self) -> int:
        return self.model_invocation_port.container_port or engine_port(self.engine)

    @property
    def decode_max_num_seqs(self) -> int:
        if self.serving is not None:
            return self.serving_max_num_seqs
        return self.decode.max_num_seqs or OPERATOR_DECODE_MAX_NUM_SEQS

    @property
    def prefill_max_num_seqs(self) -> int:
        return self.prefill.max_num_seqs or OPERATOR_PREFILL_MAX_NUM_SEQS

    @property
    def serving_max_num_seqs(self) -> int:
        """An aggregated pod's --max-num-seqs: its setting, or vLLM's own default on the
        instance type's GPUs (the operator sets it only on DPD roles)."""
        assert self.serving is not None
        return self.serving.max_num_seqs or vllm_default_max_num_seqs(self.instance_type)

    def roles(self) -> dict[Role, tuple[RoleSpec, int]]:
        """Each role by its name, with the --max-num-seqs its pods run."""
        if self.serving is not None:
            return {"serving": (self.serving, self.serving_max_num_seqs)}
        return {
            "prefill": (self.prefill, self.prefill_max_num_seqs),
            "decode": (self.decode, self.decode_max_num_seqs),
        }

    @property
    def pod_gpus(self) -> int:
        return max(role.gpus for role, _ in self.roles().values())

    @property
    def decoder(self) -> RoleSpec:
        """The role whose pods decode: decode, or serving on an aggregated endpoint."""
        return self.serving or self.decode

    @property
    def decode_gpu_memory_utilization(self) -> float:
        return self.decoder.gpu_memory_utilization or self.gpu_memory_utilization

    @model_validator(mode="before")
    @classmethod
    def _read_from_placement_and_pods(cls, data: Any) -> Any:
        """instanceType, when unset, is the first type the pods may take (instanceTypes, the
        CRD's preference order, or the nodeAffinity's); an adopted endpoint's flags and
        variables are read from its pods' command lines (adopted.py)."""
        if not isinstance(data, dict):
            return data
        if data.get("adopted") is True:
            data = with_pod_settings(data)
        if "instanceType" not in data and (named := placed_types(data)):
            data = {**data, "instanceType": named[0]}
        return data

    @field_validator("tags")
    @classmethod
    def _sagemaker_tags(cls, value: dict[str, str]) -> dict[str, str]:
        problems = tag_problems(value)
        if problems:
            raise ValueError("; ".join(problems))
        return value

    @field_validator("model_name")
    @classmethod
    def _a_model_name(cls, value: str) -> str:
        if "/" in value:
            raise ValueError(
                "must be the model's name alone, such as Llama-3.3-70B-Instruct, not a Hugging "
                "Face id (owner/name): the id goes in modelSource.huggingFace.modelId, when the "
                "weights come from there"
            )
        if len(value) > 63 or not re.fullmatch(MODEL_NAME, value):
            raise ValueError(
                "must be at most 63 letters, digits, '.', '_' or '-', starting and ending with a "
                "letter or digit, such as Llama-3.3-70B-Instruct"
            )
        return value

    @field_validator("tls_config")
    @classmethod
    def _tls_sets_something(cls, value: TlsConfig | None, info: ValidationInfo) -> Any:
        # An adopted endpoint keeps its empty tlsConfig, as `hyp create` writes it.
        if value == TlsConfig() and not info.data.get("adopted"):
            raise ValueError(
                "sets nothing; remove tlsConfig to keep the operator's certificate in the "
                "stack's TLS bucket, or set customCertificateConfig or tlsCertificateOutputS3Uri"
            )
        return value

    @field_validator("instance_type")
    @classmethod
    def _gpu_instance_type(cls, value: str, info: ValidationInfo) -> str:
        # Which of them the mode runs on is serving_mode.py's rule (DPD: five of them). An
        # adopted endpoint keeps the type it runs on, CPU-only too (the CRD's pattern).
        if value not in GPU_INSTANCE_TYPES and not (
            info.data.get("adopted") and value[:3] == "ml."
        ):
            raise ValueError(f"must be a GPU instance type: one of {', '.join(GPU_INSTANCE_TYPES)}")
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
