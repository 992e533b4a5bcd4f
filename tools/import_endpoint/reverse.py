"""An InferenceEndpointConfig read back into the endpoint item (`hyperpod-dpd:endpoints[]`) whose
settings write it: the reverse of components/endpoint/manifest.py.

Each typed setting takes the manifest fields it writes (the worker's: reverse_worker.py). What
no setting takes goes to `specOverrides` when no setting owns it (components/endpoint/
overrides.py), and is refused otherwise, naming the manifest's field: an override of an owned
field would slip past the setting's checks, and the program refuses it too. Whether the item
really writes the manifest back is for the round trip (round_trip.py) to say; this module only
reads.
"""

from typing import Any

from pydantic import ValidationError

from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.endpoint.autoscaling import CRD_ROLE_KEYS
from components.endpoint.overrides import AGGREGATED_FIELDS, DPD_FIELDS, Fixed, Owners, owned_field
from components.endpoint.placement import placed_types
from components.endpoint.worker import GPU_RESOURCE, WorkerResources, check_worker_fits_node
from tools.import_endpoint.manifests import Manifest
from tools.import_endpoint.reading import (
    Reading,
    SpecView,
    copy_key,
    leaves,
    number,
    set_key,
    shown,
)
from tools.import_endpoint.reverse_worker import read_args, read_worker


def _model_source(reading: Reading, spec: SpecView) -> None:
    copy_key(reading, spec, "modelSourceConfig.prefetchEnabled", "modelSource.prefetchEnabled")
    source = spec.get("modelSourceConfig") or {}
    kind = source.get("modelSourceType")
    base = "modelSourceConfig"
    if kind == "s3" and isinstance(source.get("s3Storage"), dict):
        spec.take(f"{base}.modelSourceType")
        copy_key(reading, spec, f"{base}.modelLocation", "modelSource.s3.prefix")
        copy_key(reading, spec, f"{base}.s3Storage.bucketName", "modelSource.s3.bucket")
        copy_key(reading, spec, f"{base}.s3Storage.region", "modelSource.s3.region")
    elif kind == "fsx" and isinstance(source.get("fsxStorage"), dict):
        spec.take(f"{base}.modelSourceType")
        copy_key(reading, spec, f"{base}.modelLocation", "modelSource.fsx.path")
        for name in ("fileSystemId", "dnsName", "mountName"):
            copy_key(reading, spec, f"{base}.fsxStorage.{name}", f"modelSource.fsx.{name}")
    elif kind == "huggingface" and isinstance(source.get("huggingFaceModel"), dict):
        spec.take(f"{base}.modelSourceType")
        hf = f"{base}.huggingFaceModel"
        copy_key(reading, spec, f"{hf}.modelId", "modelSource.huggingFace.modelId")
        copy_key(reading, spec, f"{hf}.commitSHA", "modelSource.huggingFace.commitSHA")
        copy_key(reading, spec, f"{hf}.tokenSecretRef", "modelSource.huggingFace.tokenSecretRef")
    elif kind == "kubernetesVolume":
        set_key(reading, "modelSource.kubernetesVolume", {}, f"{base}.modelSourceType")
        spec.take(f"{base}.modelSourceType")
        copy_key(reading, spec, f"{base}.modelLocation", "modelSource.kubernetesVolume.path")


def _kv_cache(reading: Reading, spec: SpecView) -> None:
    copy_key(reading, spec, "kvCacheSpec.enableL1Cache", "kvCache.enableL1Cache")
    enabled = spec.get("kvCacheSpec.enableL2Cache")
    if isinstance(enabled, bool):
        copy_key(reading, spec, "kvCacheSpec.enableL2Cache", "kvCache.enableL2Cache")
        l2 = "kvCacheSpec.l2CacheSpec"
        copy_key(reading, spec, f"{l2}.l2CacheBackend", "kvCache.l2CacheBackend")
        copy_key(reading, spec, f"{l2}.l2CacheLocalUrl", "kvCache.l2CacheLocalUrl")


def _metrics(reading: Reading, spec: SpecView) -> None:
    for name in ("enabled", "metricsScrapeIntervalSeconds", "modelMetrics"):
        copy_key(reading, spec, f"metrics.{name}", f"metrics.{name}")


def _gpus(resources: Any) -> int | None:
    """The GPUs a role's pods request, when requests and limits say the same and nothing else."""
    if not isinstance(resources, dict):
        return None
    requests, limits = resources.get("requests"), resources.get("limits")
    if requests != limits or not isinstance(requests, dict) or set(requests) != {GPU_RESOURCE}:
        return None
    return number(str(requests[GPU_RESOURCE]), int)


# A Prometheus trigger's fields, by the settings that write them.
_TRIGGER = {
    "name": "triggerName",
    "query": "query",
    "targetValue": "target",
    "metricType": "metricType",
    "serverAddress": "serverAddress",
    "activationTargetValue": "activationTargetValue",
    "useCachedMetrics": "useCachedMetrics",
}
_WINDOWS = (
    "pollingInterval",
    "cooldownPeriod",
    "initialCooldownPeriod",
    "scaleUpStabilizationTime",
    "scaleDownStabilizationTime",
)
# The CRD's maxReplicaCount when a manifest leaves it out, which the setting requires.
CRD_MAX_REPLICAS = 5


def _autoscaling(reading: Reading, spec: SpecView, path: str, key: str) -> None:
    """A role's autoscaling: its Prometheus trigger, the query as written, and its CloudWatch
    trigger, in the CRD's shape."""
    triggers = [spec.get(f"{path}.{kind}") for kind in ("prometheusTrigger", "cloudWatchTrigger")]
    if not any(isinstance(trigger, dict) for trigger in triggers):
        return
    copy_key(reading, spec, f"{path}.cloudWatchTrigger", f"{key}.cloudWatch")
    copy_key(reading, spec, f"{path}.minReplicaCount", f"{key}.minReplicas")
    most = spec.take(f"{path}.maxReplicaCount")
    set_key(reading, f"{key}.maxReplicas", CRD_MAX_REPLICAS if most is None else most, path)
    for name in _WINDOWS:
        copy_key(reading, spec, f"{path}.{name}", f"{key}.{name}")
    trigger = f"{path}.prometheusTrigger"
    if spec.get(f"{trigger}.query") is not None:
        set_key(reading, f"{key}.metric", "query", f"{trigger}.query")
    for name, setting in _TRIGGER.items():
        copy_key(reading, spec, f"{trigger}.{name}", f"{key}.{setting}")


def _role(reading: Reading, spec: SpecView, crd: str, role: str) -> None:
    base = f"pdSpec.{crd}"
    copy_key(reading, spec, f"{base}.replicas", f"{role}.replicas")
    gpus = _gpus(spec.get(f"{base}.resources"))
    if gpus is not None:
        spec.take(f"{base}.resources")
        set_key(reading, f"{role}.gpus", gpus, f"{base}.resources")
    read_args(reading, spec, f"{base}.args", f"{role}.args")
    copy_key(reading, spec, f"{base}.nodeSelector", f"{role}.nodeSelector")


def _serving(reading: Reading, spec: SpecView) -> None:
    """An aggregated endpoint: its one role's replicas at the top level (its GPUs are the
    worker's, read with them), routing and the KV cache only when the manifest has them."""
    reading.item["serving"] = {}
    copy_key(reading, spec, "replicas", "serving.replicas")
    _autoscaling(reading, spec, "autoScalingSpec", "serving.autoscaling")
    if spec.get("kvCacheSpec") is not None:
        reading.item.setdefault("kvCache", {})


def _dpd(reading: Reading, spec: SpecView) -> None:
    _role(reading, spec, "prefillSpec", "prefill")
    _role(reading, spec, "decodingSpec", "decode")
    for crd, role in CRD_ROLE_KEYS.items():
        _autoscaling(reading, spec, f"pdSpec.autoScalingSpec.{role}", f"{crd}.autoscaling")
    copy_key(reading, spec, "pdSpec.routingThreshold", "routingThreshold")
    copy_key(reading, spec, "pdSpec.topologySpec", "topologySpec")


def _sized_type(reading: Reading) -> None:
    """The instanceType the stack sizes the pods for, where the manifest names none it knows
    first (the settings then take the first the pods may land on): the first known type its
    placement names, else the smallest whose node holds a pod's GPUs, CPU and memory, noted as
    chosen. Pods placed by nothing get an empty nodeAffinity, which places them anywhere as
    before, rather than the type, which would pin them to it."""
    named = placed_types(reading.item)
    known = [name for name in named if name in GPU_INSTANCE_TYPES]
    if known:
        if known[0] != named[0]:
            set_key(reading, "instanceType", known[0], "spec")
        return
    gpus = (reading.item.get("serving") or {}).get("gpus")
    if not isinstance(gpus, int):
        return
    try:
        resources = WorkerResources.model_validate(reading.item.get("workerResources") or {})
    except ValidationError:
        resources = WorkerResources()  # the stack names what is wrong with them
    fits = [
        t
        for t in GPU_INSTANCE_TYPES.values()
        if t.gpus >= gpus and not check_worker_fits_node(resources, t.name, gpus)
    ]
    if not fits:
        return
    smallest = min(fits, key=lambda t: (t.gpus, t.hbm_bytes_per_gpu))
    set_key(reading, "instanceType", smallest.name, "spec")
    reading.item.setdefault("nodeAffinity", {})
    reading.chosen.append(
        f"instanceType {smallest.name}, the smallest type whose node holds a pod: the manifest "
        "names no type the stack knows, and the stack sizes the pods for one; set the type of "
        "the nodes they run on"
    )


def _top_level(reading: Reading, spec: SpecView) -> None:
    for path, key in (
        ("endpointName", "endpointName"),
        ("instanceType", "instanceType"),
        ("invocationEndpoint", "invocationEndpoint"),
        ("modelName", "modelName"),
        ("loadBalancer.healthCheckPath", "healthCheckPath"),
        ("tlsConfig.customCertificateConfig", "tlsConfig.customCertificateConfig"),
        ("loadBalancer.routingAlgorithm", "loadBalancer.routingAlgorithm"),
        ("loadBalancer.idleTimeoutSeconds", "loadBalancer.idleTimeoutSeconds"),
        ("kubernetes", "kubernetes"),
        ("modelCacheConfig", "modelCacheConfig"),
        ("tlsConfig.tlsCertificateOutputS3Uri", "tlsConfig.tlsCertificateOutputS3Uri"),
        ("instanceTypes", "instanceTypes"),
        ("nodeAffinity", "nodeAffinity"),
    ):
        copy_key(reading, spec, path, key)
    if spec.get("tlsConfig") == {}:  # the operator's defaults, as `hyp create` writes them
        set_key(reading, "tlsConfig", spec.take("tlsConfig"), "tlsConfig")
    routing = spec.get("intelligentRoutingSpec")
    if isinstance(routing, dict) and isinstance(routing.get("enabled"), bool):
        copy_key(reading, spec, "intelligentRoutingSpec.enabled", "routingEnabled")
        copy_key(reading, spec, "intelligentRoutingSpec.routingStrategy", "routingStrategy")
    tags = spec.get("tags")
    if isinstance(tags, list) and all(
        isinstance(t, dict) and set(t) == {"name", "value"} for t in tags
    ):
        spec.take("tags")
        set_key(reading, "tags", {t["name"]: t["value"] for t in tags}, "tags")


def _why_owned(owner: str | Fixed) -> str:
    if isinstance(owner, Fixed):
        return f"is fixed by the stack, because {owner.why}"
    return f"is written by the setting {owner}, which cannot write this value"


def owners_of(spec: dict[str, Any]) -> Owners:
    """The fields the settings own in the manifest's mode: DPD with pdSpec, else aggregated."""
    return DPD_FIELDS if "pdSpec" in spec else AGGREGATED_FIELDS


def _rest(reading: Reading, spec: SpecView) -> None:
    """What no setting took: an override when no setting owns it, else a problem."""
    owners = owners_of(spec.spec)
    overrides: dict[str, Any] = {}
    for leaf in leaves(spec.spec):
        if spec.is_taken(leaf):
            continue
        owned = owned_field(".".join(leaf), owners)
        if owned is not None:
            reading.problems.append((shown(leaf), _why_owned(owners[owned])))
            continue
        *parents, last = leaf
        place = overrides
        for parent in parents:
            place = place.setdefault(parent, {})
        place[last] = spec.at(leaf)
        reading.sources[".".join(("specOverrides", *leaf))] = shown(leaf)
    if overrides:
        reading.item["specOverrides"] = overrides


def read_item(manifest: Manifest) -> Reading:
    """The endpoint item that should write `manifest` back, adopted under its live name."""
    reading = Reading({"name": manifest.name})
    reading.sources["name"] = "metadata.name"
    # A setting read from the pods comes from their command line, even when the flag is
    # missing (a maxModelLen vLLM needs is refused naming worker.args).
    reading.sources |= {
        key: "spec.worker.args"
        for key in ("tensorParallelSize", "maxModelLen", "gpuMemoryUtilization")
    } | {"pdBufferSize": "spec.worker.environmentVariables"}
    if "namespace" in manifest.body["metadata"]:
        reading.item["namespace"] = manifest.namespace
        reading.sources["namespace"] = "metadata.namespace"
    reading.item["adopted"] = True
    spec = SpecView(manifest.spec)
    _top_level(reading, spec)
    _model_source(reading, spec)
    _metrics(reading, spec)
    _kv_cache(reading, spec)
    if "pdSpec" in spec.spec:
        _dpd(reading, spec)
    else:
        _serving(reading, spec)
    read_worker(reading, spec)
    if "instanceType" not in reading.item:
        _sized_type(reading)
    _rest(reading, spec)
    return reading
