"""Rules that relate several settings of a DPD endpoint, checked before anything deploys."""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from components.cluster.instance_types import DPD_INSTANCE_TYPES
from components.core.findings import Finding, error, warning
from components.core.reuses import reuses
from components.endpoint.autoscaling import check_role_autoscaling
from components.endpoint.environment import (
    CREDENTIAL_FLAGS,
    DEVICE_PLUGIN_ENV,
    PD_BUFFER_SIZE,
    PINNED_ENV,
    credential_advice,
)
from components.endpoint.generation import GENERATION_DIGITS, GENERATION_SUFFIX, generation_name
from components.endpoint.manifest import (
    PORT,
    ROLE_FLAG_SETTINGS,
    WORKER_FLAG_SETTINGS,
    effective_args,
    override_collisions,
    typed_spec,
)
from components.endpoint.spec import DPD_IMAGES, DpdEndpointSpec, RoleSpec
from components.endpoint.vllm_args import (
    canonical_flag,
    flag_value,
    holds_several_arguments,
    is_option,
    split_flags,
)

K8S_NAME_MAX = 63
SAGEMAKER_NAME_MAX = 63


def _roles(spec: DpdEndpointSpec) -> list[tuple[str, RoleSpec]]:
    return [("prefill", spec.prefill), ("decode", spec.decode)]


def _role_gpus(spec: DpdEndpointSpec) -> list[Finding]:
    found = []
    node_gpus = DPD_INSTANCE_TYPES[spec.instance_type].gpus
    tp = spec.tensor_parallel_size
    for role, settings in _roles(spec):
        field = f"{role}.gpus"
        if settings.gpus > node_gpus:
            found.append(
                error(
                    "gpus-exceed-node",
                    field,
                    f"{settings.gpus} GPUs do not fit one {spec.instance_type} node; "
                    f"allowed 1..{node_gpus}",
                )
            )
        elif settings.gpus < tp:
            allowed = f"{tp}" if tp == node_gpus else f"{tp}..{node_gpus}"
            found.append(
                error(
                    "gpus-below-tp",
                    field,
                    f"{settings.gpus} GPUs cannot hold tensorParallelSize {tp}; allowed {allowed}",
                )
            )
        elif settings.gpus > tp:
            found.append(
                warning(
                    "gpus-idle",
                    field,
                    f"{settings.gpus} GPUs with tensorParallelSize {tp} leave "
                    f"{settings.gpus - tp} GPUs per pod idle",
                )
            )
    return found


# Flags no setting writes but that break what the settings describe. The operator wires each
# role's KV transfer (producer on prefill, consumer on decode). Pipeline, data and decode-context
# parallelism multiply the GPUs a pod needs and change the KV per rank, while the GPU requests
# and the KV sizing assume one tensor-parallel group per pod: those may only say 1.
FIXED_FLAGS = {
    "--kv-transfer-config": "the operator configures each role's KV transfer for DPD",
}
ONE_ONLY_FLAGS = (
    "--pipeline-parallel-size",
    "--data-parallel-size",
    "--decode-context-parallel-size",
)
_OWNED_FLAGS = (*WORKER_FLAG_SETTINGS, *ROLE_FLAG_SETTINGS, *FIXED_FLAGS, *ONE_ONLY_FLAGS)


def _owned_flag(name: str) -> str | None:
    """The owned flag vLLM reads `name` as: its canonical form, or a unique prefix of one
    (argparse's allow_abbrev)."""
    flag = canonical_flag(name)
    if flag in _OWNED_FLAGS:
        return flag
    prefixed = {owned for owned in _OWNED_FLAGS if owned.startswith(flag)}
    if flag.startswith("--") and len(flag) > 3 and len(prefixed) == 1:
        return prefixed.pop()
    return None


def _flag_problem(name: str, tokens: tuple[str, ...], role: str | None) -> str | None:
    """Why the flag `name` (its tokens) may not appear in extra args, or None if it may."""
    flag = _owned_flag(name)
    if flag is None:
        return None
    said = name if flag == name else f"{name} (vLLM reads it as {flag})"
    if flag in ONE_ONLY_FLAGS:
        if flag_value(tokens) == "1":
            return None
        return (
            f"{said} is not allowed above 1: the GPU requests and the KV sizing assume one "
            "tensor-parallel group per pod; scale with replicas instead"
        )
    if flag in FIXED_FLAGS:
        return f"{said} is fixed, because {FIXED_FLAGS[flag]}; remove it"
    if role is not None and flag in ROLE_FLAG_SETTINGS:
        return f"{said} is written from {role}.{ROLE_FLAG_SETTINGS[flag]}; set that instead"
    if setting := WORKER_FLAG_SETTINGS.get(flag):
        return f"{said} is written from {setting}; set that instead"
    return (
        f"{said} is fixed, because the operator mounts the model and routes to the port; remove it"
    )


def _arg_lists(spec: DpdEndpointSpec) -> list[tuple[str, str | None, list[str]]]:
    lists = [("workerArgs", None, spec.worker_args)]
    return lists + [(f"{role}.args", role, settings.args) for role, settings in _roles(spec)]


def _credentials(spec: DpdEndpointSpec) -> list[Finding]:
    """Secrets written where the manifest carries them in plain text: vLLM flags (refused),
    and a password in the L2 cache URL (warned about); environment variables: _environment."""
    found = [
        error("credential-in-args", field, f"{name} {CREDENTIAL_FLAGS[canonical_flag(name)]}")
        for field, _, args in _arg_lists(spec)
        for name, tokens in split_flags(args)
        if canonical_flag(name) in CREDENTIAL_FLAGS and flag_value(tokens) is not None
    ]
    url = spec.kv_cache.l2_cache_local_url
    # A warning only: LMCache takes a Redis password nowhere but in this URL.
    if url and _url_password(url):
        found.append(
            warning(
                "credential-in-url",
                "kvCache.l2CacheLocalUrl",
                "holds a password, which sits in plain text in the stack file, the Pulumi state "
                "and the InferenceEndpointConfig; prefer a Redis reachable only from inside the "
                "cluster that needs none",
            )
        )
    return found


def _url_password(url: str) -> bool:
    try:
        return urlsplit(url).password is not None
    except ValueError:
        return False


def _extra_args(spec: DpdEndpointSpec) -> list[Finding]:
    found = [
        error(
            "command-line-in-one-arg",
            f"{field}[{i}]",
            f"{token!r} holds several arguments in one list item, which vLLM receives as one "
            "and refuses; give each flag and each value its own item",
        )
        for field, _, args in _arg_lists(spec)
        for i, token in enumerate(args)
        if holds_several_arguments(token)
    ]
    found += [
        error(
            "empty-arg",
            f"{field}[{i}]",
            f"{token!r} is an empty argument, which vLLM reads as a positional one: an "
            "empty model name under `vllm serve`, an unrecognized argument otherwise; drop it "
            "(an empty value goes right after its flag, or as --flag=)",
        )
        for field, _, args in _arg_lists(spec)
        for i, token in enumerate(args)
        if not token.strip() and not (i and is_option(args[i - 1]) and "=" not in args[i - 1])
    ]
    return found + [
        error("typed-flag-in-args", field, problem)
        for field, role, args in _arg_lists(spec)
        for name, tokens in split_flags(args)
        if name and (problem := _flag_problem(name, tokens, role))
    ]


# vLLM's --max-num-batched-tokens when none is given, on GPUs of 70 GiB or more (all five DPD
# types) serving the OpenAI API, with chunked prefill on (its default for generative models);
# with chunked prefill off it is max_model_len. vLLM refuses max_num_seqs above it.
# Sources: vllm/engine/arg_utils.py `EngineArgs._set_default_args`, and
# vllm/config/scheduler.py `SchedulerConfig.verify_max_model_len`.
VLLM_DEFAULT_MAX_NUM_BATCHED_TOKENS = 8192
_HUMAN_INT = re.compile(r"^(\d+(?:\.\d+)?)([kmgtKMGT]?)$")
_MULTIPLIERS = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_MULTIPLIERS |= {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def _human_int(value: str | None) -> int | None:
    """vLLM's reading of a large integer flag: `8192`, `16k` (16,000), `16K` (16,384)."""
    match = _HUMAN_INT.match((value or "").strip())
    if match is None:
        return None
    number, suffix = match.groups()
    return int(float(number) * _MULTIPLIERS.get(suffix, 1))


def _batched_tokens(spec: DpdEndpointSpec) -> list[Finding]:
    found = []
    for name, (role, max_num_seqs) in spec.roles().items():
        flags = {canonical_flag(n): t for n, t in split_flags(effective_args(spec, role)) if n}
        chunked = "--no-enable-chunked-prefill" not in flags
        given = flags.get("--max-num-batched-tokens")
        budget = _human_int(flag_value(given)) if given else None
        if budget is None:
            budget = VLLM_DEFAULT_MAX_NUM_BATCHED_TOKENS if chunked else spec.max_model_len
        source = (
            f"--max-num-batched-tokens {budget}"
            if given
            else f"vLLM's default max_num_batched_tokens of {budget}"
            + ("" if chunked else " (maxModelLen, with chunked prefill off)")
        )
        if max_num_seqs > budget:
            found.append(
                error(
                    "seqs-above-batched-tokens",
                    f"{name}.maxNumSeqs",
                    f"{max_num_seqs} is more than {source}, and vLLM refuses max_num_seqs above "
                    f"max_num_batched_tokens; set at most {budget}, or raise "
                    "--max-num-batched-tokens in args",
                )
            )
        if given and not chunked and budget < spec.max_model_len:
            found.append(
                error(
                    "batched-tokens-below-context",
                    f"{name}.args",
                    f"--max-num-batched-tokens {budget} is below maxModelLen "
                    f"{spec.max_model_len} with chunked prefill off, which vLLM refuses; raise "
                    "it or drop --no-enable-chunked-prefill",
                )
            )
    return found


# The environment's share of the object: etcd takes requests of at most 1.5 MiB, and the whole
# InferenceEndpointConfig (with its managedFields, and the Deployment the operator makes of it
# per role) must fit. 256 KiB leaves the rest of it room; larger content belongs in the model's
# files or a volume, not in variables.
ENVIRONMENT_MAX_BYTES = 256 * 1024


def _environment_size(spec: DpdEndpointSpec) -> list[Finding]:
    env = spec.environment_variables
    size = sum(len(k.encode()) + len(v.encode()) for k, v in env.items())
    if size <= ENVIRONMENT_MAX_BYTES:
        return []
    largest = max(env, key=lambda k: len(env[k].encode()))
    return [
        error(
            "environment-too-large",
            f"environmentVariables.{largest}",
            f"the variables hold {size // 1024} KiB ({largest} alone "
            f"{len(env[largest].encode()) // 1024} KiB), over the {ENVIRONMENT_MAX_BYTES // 1024} "
            "KiB this stack allows so the object fits etcd's 1.5 MiB limit; ship large content "
            "with the model's files instead",
        )
    ]


def _environment(spec: DpdEndpointSpec) -> list[Finding]:
    found = _environment_size(spec)
    env = spec.environment_variables
    if PD_BUFFER_SIZE in env:
        found.append(
            error(
                "pd-buffer-in-env",
                f"environmentVariables.{PD_BUFFER_SIZE}",
                f"{env[PD_BUFFER_SIZE]!r} is not allowed here; set pdBufferSize instead",
            )
        )
    found += [
        error(
            "gpus-in-env",
            f"environmentVariables.{name}",
            f"{env[name]!r} is not allowed here: the device plugin makes visible the GPUs "
            "prefill.gpus and decode.gpus request; set those instead",
        )
        for name in DEVICE_PLUGIN_ENV
        if name in env
    ]
    found += [
        error("credential-in-env", f"environmentVariables.{name}", advice)
        for name in env
        if (advice := credential_advice(name))
    ]
    for name, required in PINNED_ENV.items():
        if name in env and env[name] != required:
            found.append(
                error(
                    "pinned-env",
                    f"environmentVariables.{name}",
                    f"{env[name]!r} breaks DPD; the only allowed value is {required!r}",
                )
            )
    return found


def _routing(spec: DpdEndpointSpec) -> list[Finding]:
    found = []
    path = spec.invocation_endpoint
    if spec.routing_strategy == "kvaware" and "completions" not in (path or ""):
        found.append(
            error(
                "kvaware-needs-completions",
                "invocationEndpoint",
                f"{path or 'invocations (the default)'} does not work with routingStrategy "
                "kvaware, which needs a completions path such as v1/chat/completions or "
                "v1/completions",
            )
        )
    if spec.routing_threshold >= spec.max_model_len:
        found.append(
            error(
                "threshold-above-context",
                "routingThreshold",
                f"{spec.routing_threshold} is not allowed: no request can have "
                f"{spec.routing_threshold} input tokens when maxModelLen is "
                f"{spec.max_model_len}, so none would take the DPD path; set it below "
                f"{spec.max_model_len} (0 sends every request through DPD)",
            )
        )
    prefills = spec.prefill.max_replicas
    if prefills > 1 and spec.routing_strategy == "prefixaware":
        how_many = (
            f"up to {prefills} prefill replicas (prefill.autoscaling.maxReplicas)"
            if spec.prefill.autoscaling
            else f"{prefills} prefill replicas"
        )
        # The operator cannot change intelligentRoutingSpec in place (DESIGN.md, from the
        # operator docs): following the advice brings a new generation of the endpoint.
        found.append(
            warning(
                "prefixaware-many-prefills",
                "routingStrategy",
                f"prefixaware with {how_many} can pile load on one prefiller; roundrobin "
                "spreads it evenly, but on a deployed endpoint changing routingStrategy brings "
                "a new generation, created beside the old one if the cluster holds both, else "
                "after deleting it (no answers until its pods are ready again); `python -m "
                "infra diff` says which",
            )
        )
    return found


# The URL schemes LMCache's Redis connectors parse (lmcache/v1/storage_backend/connector:
# the Redis adapter takes redis://, rediss:// and unix://; the Sentinel one redis-sentinel://).
REDIS_SCHEMES = ("redis", "rediss", "unix", "redis-sentinel")


def _kv_cache(spec: DpdEndpointSpec) -> list[Finding]:
    kv = spec.kv_cache
    if kv.l2_cache_local_url and kv.l2_cache_backend is None:
        return [
            error(
                "url-without-backend",
                "kvCache.l2CacheLocalUrl",
                f"{kv.l2_cache_local_url!r} names a cache but l2CacheBackend is not set; set "
                "l2CacheBackend: redis to use it",
            )
        ]
    if kv.l2_cache_backend == "redis" and not kv.l2_cache_local_url:
        return [
            error(
                "redis-needs-url",
                "kvCache.l2CacheLocalUrl",
                "l2CacheBackend redis needs the Redis URL, e.g. redis://redis.cache:6379",
            )
        ]
    scheme = (kv.l2_cache_local_url or "").split("://", 1)[0].lower()
    if kv.l2_cache_backend == "redis" and scheme not in REDIS_SCHEMES:
        return [
            error(
                "redis-url-scheme",
                "kvCache.l2CacheLocalUrl",
                f"{kv.l2_cache_local_url!r} is not a Redis URL LMCache reads; it takes "
                f"{', '.join(s + '://' for s in REDIS_SCHEMES)}",
            )
        ]
    return []


def _topology(spec: DpdEndpointSpec) -> list[Finding]:
    if spec.topology_spec is not None and not spec.topology_spec.same_az:
        return [
            error(
                "dpd-across-azs",
                "topologySpec.sameAZ",
                "false is not allowed: prefill and decode must share an availability zone "
                "for the KV transfer over EFA",
            )
        ]
    return []


def _metrics_port(spec: DpdEndpointSpec) -> list[Finding]:
    model_metrics = spec.metrics.model_metrics
    if model_metrics is None or model_metrics.port in (None, PORT):
        return []
    return [
        error(
            "metrics-port",
            "metrics.modelMetrics.port",
            f"{model_metrics.port} is not the port vLLM serves on; the model's metrics are "
            f"scraped from the worker's containerPort, {PORT}, so set {PORT} or leave it out",
        )
    ]


# A Service's name is a DNS-1035 label (Kubernetes API validation): at most 63 characters,
# lowercase letters, digits and '-', starting with a letter.
SERVICE_NAME = re.compile(r"^[a-z]([-a-z0-9]*[a-z0-9])?$")


def _names(spec: DpdEndpointSpec) -> list[Finding]:
    # The operator names the router's Service after the endpoint's object, its generation
    # (generation.py), and its namespace; the API server refuses a bad name, and the endpoint
    # never gets its router.
    service = (
        f"{generation_name(spec.name, '0' * GENERATION_DIGITS)}-{spec.namespace}-routing-service"
    )
    if len(service) > K8S_NAME_MAX:
        problem = (
            f"would be {len(service)} characters with the generation's -g<digest>, over "
            f"Kubernetes' {K8S_NAME_MAX}; shorten name or namespace by "
            f"{len(service) - K8S_NAME_MAX}"
        )
    elif not SERVICE_NAME.match(service):
        problem = "would start with a digit, and a Service name must start with a letter"
    else:
        return []
    return [
        error(
            "router-service-name",
            "name",
            f"{spec.name!r}: the operator's router Service {service!r} {problem}",
        )
    ]


def _sagemaker_name(spec: DpdEndpointSpec) -> list[Finding]:
    """SageMaker takes endpoint names of at most 63 characters (the CRD's endpointName), and
    each generation's adds -g<digest> (generation.py)."""
    name = spec.endpoint_name
    most = SAGEMAKER_NAME_MAX - GENERATION_SUFFIX
    if name is None or len(name) <= most:
        return []
    return [
        error(
            "endpoint-name-length",
            "endpointName",
            f"{name!r} has {len(name)} characters; each generation's SageMaker endpoint adds "
            f"-g<digest> ({GENERATION_SUFFIX} characters) to it, and SageMaker takes "
            f"{SAGEMAKER_NAME_MAX}, so it may have {most}",
        )
    ]


def _image(spec: DpdEndpointSpec) -> list[Finding]:
    if spec.image in DPD_IMAGES:
        return []
    return [
        warning(
            "unknown-image",
            "image",
            f"{spec.image} is not one of the images documented for DPD ({', '.join(DPD_IMAGES)}); "
            "it must bring vLLM, LMCache, NIXL and the EFA libfabric provider",
        )
    ]


# The InferenceEndpointConfig fields typed settings own, with the setting to use instead.
# An override may add only what no setting describes: where one does, the override would
# slip past its checks (e.g. pdSpec.topologySpec.sameAZ false past the same-AZ rule).
TYPED_FIELDS = {
    "endpointName": "endpointName",
    "instanceType": "instanceType",
    # The CRD makes both exclusive with instanceType, which DPD always sets.
    "instanceTypes": "instanceType",
    "nodeAffinity": "prefill.nodeSelector and decode.nodeSelector",
    "invocationEndpoint": "invocationEndpoint",
    "modelName": "modelName",
    "modelSourceConfig": "modelSource",
    "loadBalancer.healthCheckPath": "healthCheckPath",
    "metrics.enabled": "metrics.enabled",
    "metrics.metricsScrapeIntervalSeconds": "metrics.metricsScrapeIntervalSeconds",
    "metrics.modelMetrics": "metrics.modelMetrics",
    "kvCacheSpec.enableL1Cache": "kvCache.enableL1Cache",
    "kvCacheSpec.enableL2Cache": "kvCache.l2CacheBackend",
    "kvCacheSpec.l2CacheSpec": "kvCache.l2CacheBackend and kvCache.l2CacheLocalUrl",
    "intelligentRoutingSpec": "routingStrategy",
    "pdSpec.prefillSpec": "prefill",
    "pdSpec.decodingSpec": "decode",
    "pdSpec.routingThreshold": "routingThreshold",
    "pdSpec.topologySpec": "topologySpec",
    "pdSpec.autoScalingSpec.prefillAutoScaling": "prefill.autoscaling",
    "pdSpec.autoScalingSpec.decodingAutoScaling": "decode.autoscaling",
    "tags": "tags",
    "worker.image": "image",
    "worker.args": "workerArgs",
    "worker.environmentVariables": "environmentVariables",
    "worker.resources": "workerResources",
}
# Fields no setting changes, because the operator relies on them as the program writes them.
FIXED_FIELDS = {
    "worker.modelInvocationPort": "the operator routes to port 8000",
    "worker.modelVolumeMount": "the operator mounts the model at /opt/ml/model",
}


def _leaf_paths(value: object, path: str = "") -> list[str]:
    if isinstance(value, dict) and value:
        return [
            leaf
            for key, child in value.items()
            for leaf in _leaf_paths(child, f"{path}.{key}" if path else str(key))
        ]
    return [path]


def _typed_field(path: str) -> str | None:
    """The typed or fixed field an override path sets, or sets part of."""
    for field in (*TYPED_FIELDS, *FIXED_FIELDS):
        if path == field or path.startswith(f"{field}.") or field.startswith(f"{path}."):
            return field
    return None


def _overrides(spec: DpdEndpointSpec) -> list[Finding]:
    found, typed = [], set()
    for path in _leaf_paths(spec.spec_overrides):
        field = _typed_field(path)
        if field is None or field in typed:
            continue
        typed.add(field)
        why = (
            f"is fixed, because {FIXED_FIELDS[field]}; remove it"
            if field in FIXED_FIELDS
            else f"is described by the setting {TYPED_FIELDS[field]}, whose checks an override "
            "would bypass; set that instead"
        )
        found.append(error("override-of-typed-field", f"specOverrides.{field}", why))
    # The bucket does not matter to which keys the typed settings write.
    written = typed_spec(spec, model_bucket="", region="")
    return found + [
        error(
            "override-collides",
            f"specOverrides.{path}",
            "is written from typed settings; change the setting instead of overriding it",
        )
        for path in override_collisions(written, spec.spec_overrides)
        if _typed_field(path) is None
    ]


def _autoscaling(spec: DpdEndpointSpec) -> list[Finding]:
    return [
        finding
        for name, (role, max_num_seqs) in spec.roles().items()
        if role.autoscaling is not None
        for finding in check_role_autoscaling(
            role.autoscaling, role=name, replicas=role.replicas, max_num_seqs=max_num_seqs
        )
    ]


def check_endpoint(spec: DpdEndpointSpec) -> list[Finding]:
    found = [
        *_autoscaling(spec),
        *_role_gpus(spec),
        *_extra_args(spec),
        *_credentials(spec),
        *_batched_tokens(spec),
        *_environment(spec),
        *_routing(spec),
        *_kv_cache(spec),
        *_topology(spec),
        *_metrics_port(spec),
        *_names(spec),
        *_sagemaker_name(spec),
        *_image(spec),
    ]
    # Overrides are compared with the spec the typed settings write, which settings with
    # errors (an autoscaling `query` metric without its query) cannot write.
    if any(f.level == "error" for f in found):
        return found
    return found + _overrides(spec)


def check_endpoints(specs: Sequence[DpdEndpointSpec]) -> list[tuple[int, Finding]]:
    """Findings of every endpoint, by index, plus names reused within a namespace and
    SageMaker endpoint names (unique per account and region) used twice."""
    found = [(i, finding) for i, spec in enumerate(specs) for finding in check_endpoint(spec)]
    for i, first in reuses([(spec.namespace, spec.name) for spec in specs]):
        spec = specs[i]
        found.append(
            (
                i,
                error(
                    "duplicate-name",
                    "name",
                    f"{spec.name!r} is already used in namespace {spec.namespace!r} by "
                    f"endpoints[{first}]; names are unique per namespace",
                ),
            )
        )
    for i, first in reuses([spec.endpoint_name or None for spec in specs]):
        found.append(
            (
                i,
                error(
                    "duplicate-endpoint-name",
                    "endpointName",
                    f"{specs[i].endpoint_name!r} is already the endpointName of "
                    f"endpoints[{first}]; each SageMaker endpoint needs a name of its own",
                ),
            )
        )
    return found
