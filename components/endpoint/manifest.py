"""The InferenceEndpointConfig manifest of an endpoint, as a plain dict, with its `specOverrides`
added where the settings write nothing. One builder for both modes, as the operator has one kind:
DPD writes `pdSpec`; aggregated carries its role's replicas and autoscaling at the top level."""

from typing import Any

from components.core.findings import Finding, error
from components.core.spec import Spec
from components.endpoint.autoscaling import CRD_ROLE_KEYS, role_autoscaling
from components.endpoint.engines.engine import VLLM, engine_variables
from components.endpoint.environment import PD_BUFFER_SIZE, PINNED_ENV, shared_cache_keys
from components.endpoint.generation import (
    generation,
    generation_name,
    ready_annotations,
    replaced_on,
)
from components.endpoint.kind import (
    AGGREGATED_READY_CONDITION,
    API_VERSION,
    KIND,
    READY_CONDITION,
)
from components.endpoint.model_source import source_config
from components.endpoint.overrides import add_overrides
from components.endpoint.roles import RoleSpec
from components.endpoint.spec import EndpointSpec, KvCache, Metrics
from components.endpoint.vllm_args import (
    MODEL_PATH,
    effective_args,
    role_args,
    worker_args,
)
from components.endpoint.worker import WorkerResources

HF_TOKEN_KEY = "token"
# The label every generation of an endpoint carries, with the endpoint's name: what finds its
# object whatever the generation.
ENDPOINT_LABEL = "hyperpod-dpd/endpoint"


def hf_token_secret_name(endpoint_name: str) -> str:
    return f"{endpoint_name}-hf-token"


def environment(spec: EndpointSpec) -> list[dict[str, Any]]:
    """The user's variables, those Kubernetes fills, then the engine's, then the DPD ones (or the
    hash seed of colocated pods that share cache keys); an adopted endpoint's as it has them."""
    kv = spec.kv_cache
    shared_l2 = spec.kv_cache_written and kv.enable_l2_cache is not False and kv.l2_cache_backend
    kvaware = spec.intelligent_routing and spec.routing_strategy == "kvaware"
    dpd = (
        {PD_BUFFER_SIZE: str(int(spec.pd_buffer_size)), **PINNED_ENV}
        if not spec.aggregated
        else shared_cache_keys(bool(shared_l2 or kvaware), spec.decoder.max_replicas)
    )
    engine = engine_variables(
        spec.engine,
        tensor_parallel_size=spec.tensor_parallel_size,
        max_model_len=spec.max_model_len,
        model_path=MODEL_PATH,
        gpu_memory_utilization=(
            spec.gpu_memory_utilization
            if "gpu_memory_utilization" in spec.model_fields_set
            else None
        ),
    )
    # DPD's variables are the stack's; a colocated pod keeps a seed of the user's own.
    owned = {} if spec.aggregated or spec.adopted else dpd
    user = {k: v for k, v in spec.environment_variables.items() if k not in owned}
    written = [{"name": k, "value": v} for k, v in user.items()]
    written += [{"name": k, "valueFrom": source} for k, source in spec.environment_from.items()]
    if spec.adopted:
        return written
    dpd = {k: v for k, v in dpd.items() if k not in user}
    return written + [{"name": k, "value": v} for k, v in {**engine, **dpd}.items()]


def _role(spec: EndpointSpec, role: RoleSpec) -> dict[str, Any]:
    out: dict[str, Any] = {
        "replicas": role.replicas,
        "resources": WorkerResources().with_gpus(role.gpus),
    }
    if args := role_args(spec, role):
        out["args"] = args
    if role.node_selector:
        out["nodeSelector"] = dict(role.node_selector)
    return out


def _kv_cache(spec: EndpointSpec) -> dict[str, Any]:
    kv = spec.kv_cache
    out: dict[str, Any] = {"enableL1Cache": kv.enable_l1_cache}
    if kv.enable_l2_cache is False:
        out["enableL2Cache"] = False
    if kv.l2_cache_backend:
        l2 = {"l2CacheBackend": kv.l2_cache_backend}
        if kv.l2_cache_local_url:
            l2["l2CacheLocalUrl"] = kv.l2_cache_local_url
        out |= {"enableL2Cache": kv.enable_l2_cache is not False, "l2CacheSpec": l2}
    if spec.adopted:
        # The switches as the live object has them: the operator's defaults fill the rest.
        given = {KvCache.model_fields[f].alias for f in kv.model_fields_set}
        out = {k: v for k, v in out.items() if k in given or k == "l2CacheSpec"}
    return out


def _metrics(spec: EndpointSpec) -> dict[str, Any]:
    """`modelMetrics.port` is always written: the CRD defaults it to 8080, and it must equal
    `modelInvocationPort.containerPort` (AWS, "KV caching and intelligent routing")."""
    metrics = spec.metrics
    out: dict[str, Any] = {"enabled": metrics.enabled}
    if metrics.metrics_scrape_interval_seconds is not None:
        out["metricsScrapeIntervalSeconds"] = metrics.metrics_scrape_interval_seconds
    model_metrics: dict[str, Any] = {}
    if metrics.model_metrics is not None:
        model_metrics = metrics.model_metrics.model_dump(by_alias=True, exclude_none=True)
    if metrics.enabled and not spec.adopted:
        model_metrics["port"] = spec.container_port
    if model_metrics:
        out["modelMetrics"] = model_metrics
    return out


def check_metrics_port(metrics: Metrics, port: int) -> list[Finding]:
    model_metrics = metrics.model_metrics
    if model_metrics is None or model_metrics.port in (None, port):
        return []
    return [
        error(
            "metrics-port",
            "metrics.modelMetrics.port",
            f"{model_metrics.port} is not the port the model server serves on; the model's "
            f"metrics are scraped from the worker's containerPort "
            f"(modelInvocationPort.containerPort), {port}, so set {port} or leave it out",
        )
    ]


def _autoscaling(spec: EndpointSpec, prometheus_address: str | None, digest: str | None) -> dict:
    return {
        name: role_autoscaling(
            role.autoscaling,
            name,
            endpoint_name=object_name(spec, digest),
            sagemaker_endpoint=sagemaker_endpoint_name(spec, digest),
            namespace=spec.namespace,
            max_num_seqs=max_num_seqs,
            stack_server_address=prometheus_address,
        )
        for name, (role, max_num_seqs) in spec.roles().items()
        if role.autoscaling is not None
    }


def _pd_spec(
    spec: EndpointSpec, prometheus_address: str | None, zone_name: str | None, digest: str | None
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "prefillSpec": _role(spec, spec.prefill),
        "decodingSpec": _role(spec, spec.decode),
    }
    if _writes(spec, "routing_threshold"):
        out["routingThreshold"] = spec.routing_threshold
    if spec.topology_spec is not None:
        # The AZ as node labels name it: the deploying account's name for the configured ID.
        out["topologySpec"] = _written(spec.topology_spec)
        if zone_name is not None:
            out["topologySpec"]["availabilityZone"] = zone_name
    if autoscaling := _autoscaling(spec, prometheus_address, digest):
        out["autoScalingSpec"] = {CRD_ROLE_KEYS[role]: entry for role, entry in autoscaling.items()}
    return out


def _worker(spec: EndpointSpec) -> dict[str, Any]:
    """The worker: on an aggregated endpoint its pods' own (their GPUs, and the serving role's
    flags written out, as no operator merge follows); with DPD what each role's pods start from
    (the operator ignores its resources there, but the CRD requires them)."""
    # vLLM's flags are the settings'; another engine reads them from its variables.
    if spec.engine != VLLM:
        args = [*spec.worker_args, *(spec.serving.args if spec.serving else [])]
    elif spec.serving is not None:
        args = effective_args(spec, spec.serving)
    else:
        args = worker_args(spec)
    out: dict[str, Any] = {"image": spec.image}
    env = environment(spec)
    if args:
        out["args"] = args
    return (
        out
        | {
            "modelInvocationPort": {
                "name": spec.model_invocation_port.name,
                "containerPort": spec.container_port,
            },
            "modelVolumeMount": {"name": spec.model_volume_mount.name, "mountPath": MODEL_PATH},
            "resources": spec.worker_resources.with_gpus(spec.pod_gpus),
        }
        | ({"environmentVariables": env} if env or _writes(spec, "environment_variables") else {})
        | {
            key: _written(value)
            for key, value in {
                "command": spec.command,
                "probes": spec.probes,
                "requestLimits": spec.request_limits,
                "workingDir": spec.working_dir,
            }.items()
            if value is not None
        }
    )


def _writes(spec: EndpointSpec, field: str, settings: Spec | None = None) -> bool:
    """Whether the manifest writes a setting with a default: always, but on an adopted
    endpoint only where its item sets it, as the live object has it."""
    return not spec.adopted or field in (settings or spec).model_fields_set


def _written(value: Any) -> Any:
    """A setting as the CRD spells it, without what it leaves to the operator."""
    return value.model_dump(by_alias=True, exclude_none=True) if isinstance(value, Spec) else value


def _load_balancer(spec: EndpointSpec) -> dict[str, Any]:
    path = {} if spec.health_check_path is None else {"healthCheckPath": spec.health_check_path}
    return path | (_written(spec.load_balancer) if spec.load_balancer else {})


def _generation_of(spec: EndpointSpec, name: str, digest: str | None) -> str:
    return generation_name(name, digest) if spec.renames and digest is not None else name


def object_name(spec: EndpointSpec, digest: str | None) -> str:
    return _generation_of(spec, spec.name, digest)


def sagemaker_endpoint_name(spec: EndpointSpec, digest: str | None) -> str | None:
    """The SageMaker endpoint the operator creates, in the generation with rollout newName
    (both generations run at once, and SageMaker's names are unique per account and region)."""
    if spec.endpoint_name is None:
        return None
    return _generation_of(spec, spec.endpoint_name, digest)


def build_manifest(
    spec: EndpointSpec,
    *,
    model_bucket: str | None,
    region: str,
    prometheus_address: str | None = None,
    zone_name: str | None = None,
    digest: str | None = None,
) -> dict:
    """`prometheus_address` is the stack's AMP workspace, queried by roles that name none;
    `zone_name` the account's name for `topologySpec.availabilityZone`; `digest` the endpoint's
    generation, which has `pulumi up` wait until it serves and, with rollout newName, names the
    object, its SageMaker endpoint and model."""
    out: dict[str, Any] = {}
    if (sagemaker := sagemaker_endpoint_name(spec, digest)) is not None:
        out["endpointName"] = sagemaker
    # The CRD takes one of instanceType, instanceTypes and nodeAffinity.
    if spec.instance_types:
        out["instanceTypes"] = list(spec.instance_types)
    elif spec.node_affinity is not None:
        if spec.node_affinity:  # an empty affinity places the pods anywhere, as none does
            out["nodeAffinity"] = spec.node_affinity
    else:
        out["instanceType"] = spec.instance_type
    if spec.invocation_endpoint is not None:
        out["invocationEndpoint"] = spec.invocation_endpoint
    # The CRD's modelName, the "name of model that will be created on Sagemaker": in the
    # generation too where two generations each create one.
    out["modelName"] = spec.model_name
    if spec.endpoint_name is not None:
        out["modelName"] = _generation_of(spec, spec.model_name, digest)
    out["modelSourceConfig"] = source_config(
        spec.model_source,
        model_bucket=model_bucket,
        region=region,
        stack_token=(hf_token_secret_name(spec.name), HF_TOKEN_KEY),
    )
    if balancer := _load_balancer(spec):
        out["loadBalancer"] = balancer
    for key, section in (
        ("kubernetes", spec.kubernetes),
        ("modelCacheConfig", spec.model_cache_config),
    ):
        if section is not None:
            out[key] = _written(section)
    if _writes(spec, "metrics"):
        out["metrics"] = _metrics(spec)
    if spec.kv_cache_written:
        out["kvCacheSpec"] = _kv_cache(spec)
    if spec.intelligent_routing or spec.routing_enabled is False:
        routing: dict[str, Any] = {"enabled": spec.intelligent_routing}
        if (spec.intelligent_routing and not spec.adopted) or _writes(spec, "routing_strategy"):
            routing["routingStrategy"] = spec.routing_strategy
        out["intelligentRoutingSpec"] = routing
    if spec.serving is None:
        out["pdSpec"] = _pd_spec(spec, prometheus_address, zone_name, digest)
    else:
        if _writes(spec, "replicas", spec.serving):
            out["replicas"] = spec.serving.replicas
        if autoscaling := _autoscaling(spec, prometheus_address, digest):
            out["autoScalingSpec"] = autoscaling["serving"]
    if spec.tls_config is not None:
        out["tlsConfig"] = _written(spec.tls_config)
    if spec.tags:
        out["tags"] = [{"name": k, "value": v} for k, v in spec.tags.items()]
    out["worker"] = _worker(spec)
    metadata: dict[str, Any] = {
        "name": object_name(spec, digest),
        "namespace": spec.namespace,
        "labels": {ENDPOINT_LABEL: spec.name},
    }
    if digest is not None:
        ready = READY_CONDITION if spec.serving is None else AGGREGATED_READY_CONDITION
        metadata["annotations"] = ready_annotations(ready)
    return {
        "apiVersion": API_VERSION,
        "kind": KIND,
        "metadata": metadata,
        "spec": add_overrides(out, spec.spec_overrides),
    }


def endpoint_generation(spec: EndpointSpec, *, model_bucket: str | None, region: str) -> str:
    """The endpoint's generation: a digest of what its mode cannot change in place
    (`replaced_on`), taken before the generation names anything. The AZ is taken as configured
    (an AZ ID) rather than by the account's name for it, which the same ID always keeps."""
    manifest = build_manifest(spec, model_bucket=model_bucket, region=region)
    return generation(manifest["spec"], replaced_on(spec))
