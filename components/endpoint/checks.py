"""Rules that relate several settings of a DPD endpoint, checked before anything deploys."""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence

from components.cluster.instance_types import DPD_INSTANCE_TYPES
from components.core.findings import Finding, error, warning
from components.endpoint.autoscaling import check_role_autoscaling
from components.endpoint.environment import PD_BUFFER_SIZE, PINNED_ENV
from components.endpoint.manifest import (
    ROLE_FLAG_SETTINGS,
    WORKER_FLAG_SETTINGS,
    override_collisions,
    typed_spec,
)
from components.endpoint.spec import DPD_IMAGES, DpdEndpointSpec, RoleSpec
from components.endpoint.vllm_args import flag_names

K8S_NAME_MAX = 63


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


def _flag_problem(flag: str, role: str | None) -> str | None:
    """Why `flag` may not appear in extra args, or None if it may."""
    if role is not None and flag in ROLE_FLAG_SETTINGS:
        return f"{flag} is written from {role}.{ROLE_FLAG_SETTINGS[flag]}; set that instead"
    if flag not in WORKER_FLAG_SETTINGS:
        return None
    if setting := WORKER_FLAG_SETTINGS[flag]:
        return f"{flag} is written from {setting}; set that instead"
    return (
        f"{flag} is fixed, because the operator mounts the model and routes to the port; remove it"
    )


def _extra_args(spec: DpdEndpointSpec) -> list[Finding]:
    lists = [("workerArgs", None, spec.worker_args)]
    lists += [(f"{role}.args", role, settings.args) for role, settings in _roles(spec)]
    return [
        error("typed-flag-in-args", field, problem)
        for field, role, args in lists
        for flag in flag_names(args)
        if (problem := _flag_problem(flag, role))
    ]


def _environment(spec: DpdEndpointSpec) -> list[Finding]:
    found = []
    env = spec.environment_variables
    if PD_BUFFER_SIZE in env:
        found.append(
            error(
                "pd-buffer-in-env",
                f"environmentVariables.{PD_BUFFER_SIZE}",
                f"{env[PD_BUFFER_SIZE]!r} is not allowed here; set pdBufferSize instead",
            )
        )
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
        # operator docs): following the advice replaces the endpoint.
        found.append(
            warning(
                "prefixaware-many-prefills",
                "routingStrategy",
                f"prefixaware with {how_many} can pile load on one prefiller; roundrobin "
                "spreads it evenly, but changing routingStrategy replaces the endpoint (deleted "
                "and created again: no answers until its pods are ready again)",
            )
        )
    return found


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


def _names(spec: DpdEndpointSpec) -> list[Finding]:
    # The operator names the router's Service after the endpoint and its namespace.
    service = f"{spec.name}-{spec.namespace}-routing-service"
    if len(service) > K8S_NAME_MAX:
        return [
            warning(
                "router-name-too-long",
                "name",
                f"the operator's router Service {service!r} would be {len(service)} characters, "
                f"over Kubernetes' {K8S_NAME_MAX}; shorten name or namespace",
            )
        ]
    return []


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


def _overrides(spec: DpdEndpointSpec) -> list[Finding]:
    # The bucket does not matter to which keys the typed settings write.
    written = typed_spec(spec, model_bucket="", region="")
    return [
        error(
            "override-collides",
            f"specOverrides.{path}",
            "is written from typed settings; change the setting instead of overriding it",
        )
        for path in override_collisions(written, spec.spec_overrides)
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
    return [
        *_autoscaling(spec),
        *_role_gpus(spec),
        *_extra_args(spec),
        *_environment(spec),
        *_routing(spec),
        *_kv_cache(spec),
        *_topology(spec),
        *_names(spec),
        *_image(spec),
        *_overrides(spec),
    ]


def _reuses(keys: Sequence[Hashable | None]) -> Iterator[tuple[int, int]]:
    """(index, index of its first use) of every key used again; None is no key."""
    first_index: dict[Hashable, int] = {}
    for i, key in enumerate(keys):
        if key is None:
            continue
        if key in first_index:
            yield i, first_index[key]
        first_index.setdefault(key, i)


def check_endpoints(specs: Sequence[DpdEndpointSpec]) -> list[tuple[int, Finding]]:
    """Findings of every endpoint, by index, plus names reused within a namespace and
    SageMaker endpoint names (unique per account and region) used twice."""
    found = [(i, finding) for i, spec in enumerate(specs) for finding in check_endpoint(spec)]
    for i, first in _reuses([(spec.namespace, spec.name) for spec in specs]):
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
    for i, first in _reuses([spec.endpoint_name or None for spec in specs]):
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
