"""Every rule of an endpoint's settings, each from the module of the concept it guards, and
the rules across endpoints. Fields are relative to the endpoint (`prefill.gpus`)."""

import itertools
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from components.core.findings import Finding, error, warning
from components.core.reuses import reuses
from components.endpoint.adopted import pod_settings
from components.endpoint.autoscaling import check_role_autoscaling, metric_of
from components.endpoint.engines.engine import (
    VLLM,
    check_dpd_engine,
    check_engine_features,
    check_engine_image,
    check_engine_metrics,
    check_engine_variables,
)
from components.endpoint.environment import check_environment, check_environment_from
from components.endpoint.image import check_image
from components.endpoint.manifest import check_metrics_port
from components.endpoint.model_source import check_model_source
from components.endpoint.names import check_names
from components.endpoint.overrides import check_overrides
from components.endpoint.placement import check_placement
from components.endpoint.pod import check_pod
from components.endpoint.probes import check_probes
from components.endpoint.roles import check_role_gpus, check_topology
from components.endpoint.routing import check_kv_cache, check_routing
from components.endpoint.serving_mode import check_serving_mode
from components.endpoint.spec import EndpointSpec, check_tls_output
from components.endpoint.vllm_args import check_args
from components.endpoint.worker import check_worker_fits_node
from components.endpoint.workload import check_workload


def _autoscaling(spec: EndpointSpec) -> list[Finding]:
    found = [
        finding
        for name, (role, max_num_seqs) in spec.roles().items()
        if role.autoscaling is not None
        for finding in check_role_autoscaling(
            role.autoscaling,
            role=name,
            replicas=role.replicas,
            max_num_seqs=max_num_seqs,
            endpoint_name=spec.endpoint_name,
        )
    ]
    # An adopted endpoint's CloudWatch trigger is the live one's, which KEDA refuses there
    # already: adopting it changes nothing that runs, so it is told rather than refused.
    adopted = spec.adopted and "cloudwatch-trigger"
    return [replace(f, level="warning") if f.code == adopted else f for f in found]


def _engine(spec: EndpointSpec) -> list[Finding]:
    metrics = {
        f"{name}.autoscaling.metric": metric
        for name, (role, _) in spec.roles().items()
        if role.autoscaling is not None and (metric := metric_of(role.autoscaling, name))
    }
    return [
        *([] if spec.aggregated else check_dpd_engine(spec.engine)),
        *check_engine_image(spec.engine, spec.image, "image" in spec.model_fields_set),
        # An adopted endpoint's variables are its pods' own, its settings read from them.
        *([] if spec.adopted else check_engine_variables(spec.engine, spec.environment_variables)),
        *check_engine_metrics(spec.engine, metrics),
        *check_engine_features(
            spec.engine,
            None
            if not spec.intelligent_routing
            else "routingStrategy"
            if "routing_strategy" in spec.model_fields_set
            else "routingEnabled",
            "kvCache" if "kv_cache" in spec.model_fields_set else None,
        ),
    ]


def _worker_resources(spec: EndpointSpec) -> list[Finding]:
    """An aggregated pod's requests against the nodes it may land on. DPD pods take theirs
    from the roles (the operator ignores workerResources there); the default is a share of
    the node; and a node affinity may pick nodes by what tells no type (a hostname)."""
    if (
        spec.serving is None
        or "worker_resources" not in spec.model_fields_set
        or spec.node_affinity is not None
    ):
        return []
    found = check_worker_fits_node(
        spec.worker_resources, spec.instance_type, spec.serving.gpus, spec.instance_types
    )
    # An adopted endpoint's instanceType may be one import-endpoint chose: told, not refused.
    return [replace(f, level="warning") for f in found] if spec.adopted else found


# Each setting read from the pods, by the field that holds it.
_FIELDS = {
    "tensorParallelSize": "tensor_parallel_size",
    "maxModelLen": "max_model_len",
    "gpuMemoryUtilization": "gpu_memory_utilization",
    "maxNumSeqs": "max_num_seqs",
    "pdBufferSize": "pd_buffer_size",
}


def _adopted(spec: EndpointSpec) -> list[Finding]:
    """A setting an adopted item sets beside its pods' command lines must say what they run:
    the stack writes them as they are, so the setting would describe other pods."""
    if not spec.adopted:
        return []
    roles = spec.roles()
    command_line = [*(spec.command or []), *spec.worker_args]
    found = pod_settings(
        spec.engine,
        command_line,
        spec.environment_variables,
        {name: [*command_line, *role.args] for name, (role, _) in roles.items()},
        spec.pod_gpus,
    )

    def value(key: str) -> Any:
        *role, name = key.split(".")
        settings = roles[role[0]][0] if role else spec
        # Where no source says what the engine runs unset, an unset setting says nothing.
        return (
            getattr(settings, _FIELDS[name]) if _FIELDS[name] in settings.model_fields_set else None
        )

    return [
        error(
            "adopted-setting-differs",
            key,
            f"{value(key)} is not what this adopted endpoint's pods run "
            f"({'unset' if runs is None else runs}); their command line and variables are "
            "written as they run: change it there, and leave this key out",
        )
        for key, runs in found.items()
        if value(key) != runs
    ]


def check_endpoint(spec: EndpointSpec) -> list[Finding]:
    mode = check_serving_mode(spec)
    if mode:
        # The other rules read the settings in the mode they are written for.
        return mode
    roles = {name: role for name, (role, _) in spec.roles().items()}
    # The stack writes the DPD variables, but an adopted endpoint's as its pods have them.
    dpd_env = not spec.aggregated and not spec.adopted
    return [
        *_adopted(spec),
        *_autoscaling(spec),
        *check_role_gpus(roles, spec.tensor_parallel_size, spec.instance_type),
        *check_args(spec),
        *check_environment(spec.environment_variables, dpd=dpd_env),
        *check_environment_from(spec.environment_from, spec.environment_variables, dpd=dpd_env),
        *check_routing(spec),
        *check_kv_cache(spec.kv_cache),
        *check_topology(spec.topology_spec),
        *check_metrics_port(spec.metrics, spec.container_port),
        *check_names(spec),
        # The images DPD needs; a colocated pod runs any vLLM image.
        *(check_image(spec.image) if spec.engine == VLLM and not spec.aggregated else []),
        *_engine(spec),
        *check_tls_output(spec.tls_config),
        *check_overrides(spec),
        *check_workload(spec),
        *_worker_resources(spec),
        *check_model_source(spec.model_source),
        *check_probes(spec.probes, spec.container_port, spec.model_invocation_port.name),
        *check_pod(spec.kubernetes),
        *check_placement(
            spec.instance_type, spec.instance_types, spec.node_affinity, not spec.aggregated
        ),
    ]


def check_endpoints(specs: Sequence[EndpointSpec]) -> list[tuple[int, Finding]]:
    """Findings of every endpoint, by index, and of names they share or may come to share."""
    found = [(i, finding) for i, spec in enumerate(specs) for finding in check_endpoint(spec)]
    found += [
        (
            i,
            error(
                "duplicate-name",
                "name",
                f"{specs[i].name!r} is already used in namespace "
                f"{specs[i].namespace!r} by endpoints[{first}]; names are unique per namespace",
            ),
        )
        for i, first in reuses([(spec.namespace, spec.name) for spec in specs])
    ]
    found += [
        (
            i,
            error(
                "duplicate-endpoint-name",
                "endpointName",
                f"{specs[i].endpoint_name!r} is "
                f"already the endpointName of endpoints[{first}]; each SageMaker endpoint "
                "needs a name of its own",
            ),
        )
        for i, first in reuses([spec.endpoint_name or None for spec in specs])
    ]
    # A warning: the CRD calls modelName the "Name of model that will be created on Sagemaker",
    # but the operator must alter the names SageMaker refuses (spec.py, MODEL_NAME).
    found += [
        (i, warning("duplicate-model-name", "modelName", f"{specs[i].model_name!r} is already "
         f"the modelName of endpoints[{first}], and each may name the SageMaker model its "
         "endpoint creates, unique per account and region: give one another"))
        for i, first in reuses([s.model_name if s.endpoint_name else None for s in specs])
    ]  # fmt: skip
    # A name another endpoint's generations may take (`<its name>-g<digest>`).
    for (i, spec), (j, other) in itertools.permutations(enumerate(specs), 2):
        for field, mine, theirs in (
            ("name", spec.name if spec.namespace == other.namespace else None, other.name),
            ("endpointName", spec.endpoint_name, other.endpoint_name),
        ):
            if mine and theirs and re.fullmatch(rf"{re.escape(theirs)}-g[0-9a-f]{{5}}", mine):
                message = (
                    f"{mine!r} is named like a generation of endpoints[{j}]'s {theirs!r} "
                    "(with rollout newName), which it would collide with; choose another"
                )
                found.append((i, error("named-like-generation", field, message)))
    return found
