"""An InferenceEndpointConfig read back into the endpoint item (`hyperpod-dpd:endpoints[]`) whose
settings write it: the reverse of components/endpoint/manifest.py.

Each typed setting takes the manifest fields it writes. What no setting takes goes to
`specOverrides` when no setting owns it (manifest.py's owner tables), and is refused otherwise,
naming the manifest's field: an override of an owned field would slip past the setting's checks,
and the program refuses it too. Whether the item really writes the manifest back is for the
round trip (round_trip.py) to say; this module only reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.endpoint.engines.engine import OTHER_ENGINES, VLLM
from components.endpoint.environment import PD_BUFFER_SIZE, PINNED_ENV
from components.endpoint.flags import canonical_flag, split_flags
from components.endpoint.overrides import AGGREGATED_FIELDS, DPD_FIELDS, Fixed, Owners, owned_field
from components.endpoint.placement import affinity_types
from components.endpoint.vllm_args import FIXED_WORKER_FLAGS, MODEL_PATH
from components.endpoint.worker import GPU_RESOURCE
from tools.import_endpoint.manifests import Manifest

# The vLLM flags typed settings write (vllm_args.worker_flags and role_flags), by flag: the
# item key that takes the value, and its type.
TYPED_FLAGS = {
    "--port": ("modelInvocationPort.containerPort", int),
    "--tensor-parallel-size": ("tensorParallelSize", int),
    "--max-model-len": ("maxModelLen", int),
    "--gpu-memory-utilization": ("gpuMemoryUtilization", float),
}
ROLE_FLAGS = {
    "--max-num-seqs": ("maxNumSeqs", int),
    "--gpu-memory-utilization": ("gpuMemoryUtilization", float),
}


@dataclass
class Reading:
    """The item read from one manifest, with the manifest field behind each of its keys (to
    name the field when the stack refuses a key) and the fields no setting can write."""

    item: dict[str, Any]
    sources: dict[str, str] = field(default_factory=dict)
    problems: list[tuple[str, str]] = field(default_factory=list)
    # Keys the reading chose where the manifest says nothing, each with why.
    chosen: list[str] = field(default_factory=list)


Path = tuple[str, ...]


def _path(dotted: str) -> Path:
    return tuple(dotted.split("."))


def shown(path: Path) -> str:
    """A spec path as the manifest's field: `spec.` and the keys, dots and all."""
    return ".".join(("spec", *path))


def leaves(value: Any, here: Path = ()) -> list[Path]:
    """The paths of every leaf under `value` (an empty mapping is a leaf); keys may hold dots
    (`nvidia.com/gpu`), so a path is a tuple of keys."""
    if isinstance(value, dict) and value:
        return [leaf for key, child in value.items() for leaf in leaves(child, (*here, str(key)))]
    return [here]


class _Spec:
    """The manifest's spec, and the paths of it that settings have taken."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.taken: set[Path] = set()

    def at(self, path: Path) -> Any:
        value: Any = self.spec
        for key in path:
            if not isinstance(value, dict) or key not in value:
                return None
            value = value[key]
        return value

    def get(self, dotted: str) -> Any:
        return self.at(_path(dotted))

    def take(self, dotted: str) -> Any:
        value = self.get(dotted)
        if value is not None:
            self.taken.add(_path(dotted))
        return value

    def is_taken(self, leaf: Path) -> bool:
        return any(leaf[: len(t)] == t for t in self.taken)


def _set(reading: Reading, key: str, value: Any, source: str) -> None:
    """Put `value` at the dotted item `key`, noting the manifest field it came from."""
    if value is None:
        return
    *parents, last = key.split(".")
    place = reading.item
    for parent in parents:
        place = place.setdefault(parent, {})
    place[last] = value
    reading.sources[key] = shown(_path(source))


def _copy(reading: Reading, spec: _Spec, path: str, key: str) -> None:
    _set(reading, key, spec.take(path), path)


def _number(text: str | None, kind: type) -> int | float | str | None:
    if text is None:
        return None
    try:
        return kind(text)
    except ValueError:
        return text


def _model_source(reading: Reading, spec: _Spec) -> None:
    _copy(reading, spec, "modelSourceConfig.prefetchEnabled", "modelSource.prefetchEnabled")
    source = spec.get("modelSourceConfig") or {}
    kind = source.get("modelSourceType")
    base = "modelSourceConfig"
    if kind == "s3" and isinstance(source.get("s3Storage"), dict):
        spec.take(f"{base}.modelSourceType")
        _copy(reading, spec, f"{base}.modelLocation", "modelSource.s3.prefix")
        _copy(reading, spec, f"{base}.s3Storage.bucketName", "modelSource.s3.bucket")
        _copy(reading, spec, f"{base}.s3Storage.region", "modelSource.s3.region")
    elif kind == "fsx" and isinstance(source.get("fsxStorage"), dict):
        spec.take(f"{base}.modelSourceType")
        _copy(reading, spec, f"{base}.modelLocation", "modelSource.fsx.path")
        for name in ("fileSystemId", "dnsName", "mountName"):
            _copy(reading, spec, f"{base}.fsxStorage.{name}", f"modelSource.fsx.{name}")
    elif kind == "huggingface" and isinstance(source.get("huggingFaceModel"), dict):
        spec.take(f"{base}.modelSourceType")
        hf = f"{base}.huggingFaceModel"
        _copy(reading, spec, f"{hf}.modelId", "modelSource.huggingFace.modelId")
        _copy(reading, spec, f"{hf}.commitSHA", "modelSource.huggingFace.commitSHA")
        _copy(reading, spec, f"{hf}.tokenSecretRef", "modelSource.huggingFace.tokenSecretRef")
    elif kind == "kubernetesVolume":
        _set(reading, "modelSource.kubernetesVolume", {}, f"{base}.modelSourceType")
        spec.take(f"{base}.modelSourceType")
        _copy(reading, spec, f"{base}.modelLocation", "modelSource.kubernetesVolume.path")


def _kv_cache(reading: Reading, spec: _Spec) -> None:
    _copy(reading, spec, "kvCacheSpec.enableL1Cache", "kvCache.enableL1Cache")
    enabled = spec.get("kvCacheSpec.enableL2Cache")
    if enabled is False:
        _copy(reading, spec, "kvCacheSpec.enableL2Cache", "kvCache.enableL2Cache")
    if isinstance(enabled, bool):
        spec.take("kvCacheSpec.enableL2Cache")
        l2 = "kvCacheSpec.l2CacheSpec"
        _copy(reading, spec, f"{l2}.l2CacheBackend", "kvCache.l2CacheBackend")
        _copy(reading, spec, f"{l2}.l2CacheLocalUrl", "kvCache.l2CacheLocalUrl")


def _metrics(reading: Reading, spec: _Spec) -> None:
    for name in ("enabled", "metricsScrapeIntervalSeconds", "modelMetrics"):
        _copy(reading, spec, f"metrics.{name}", f"metrics.{name}")


def _gpus(resources: Any) -> int | None:
    """The GPUs a role's pods request, when requests and limits say the same and nothing else."""
    if not isinstance(resources, dict):
        return None
    requests, limits = resources.get("requests"), resources.get("limits")
    if requests != limits or not isinstance(requests, dict) or set(requests) != {GPU_RESOURCE}:
        return None
    return _number(str(requests[GPU_RESOURCE]), int)


def _args(
    reading: Reading, spec: _Spec, path: str, key: str, typed: dict[str, tuple[str, type]]
) -> None:
    """Flags typed settings write go to their settings; the rest, in order, to `key`."""
    args = spec.get(path)
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return
    spec.take(path)
    rest: list[str] = []
    prefix = key.rsplit(".", 1)[0] + "." if "." in key else ""
    for name, tokens in split_flags(args):
        value = tokens[1] if len(tokens) == 2 else None
        flag = canonical_flag(name) if name else name
        if flag in typed and value is not None:
            setting, kind = typed[flag]
            _set(reading, f"{prefix}{setting}", _number(value, kind), path)
        elif not (
            key == "workerArgs" and value is not None and FIXED_WORKER_FLAGS.get(flag) == value
        ):
            rest.extend(tokens)
    if rest:
        _set(reading, key, rest, path)


def _role(reading: Reading, spec: _Spec, crd: str, role: str) -> None:
    base = f"pdSpec.{crd}"
    _copy(reading, spec, f"{base}.replicas", f"{role}.replicas")
    gpus = _gpus(spec.get(f"{base}.resources"))
    if gpus is not None:
        spec.take(f"{base}.resources")
        _set(reading, f"{role}.gpus", gpus, f"{base}.resources")
    _args(reading, spec, f"{base}.args", f"{role}.args", ROLE_FLAGS)
    _copy(reading, spec, f"{base}.nodeSelector", f"{role}.nodeSelector")


def _serving(reading: Reading, spec: _Spec) -> None:
    """An aggregated endpoint: its one role's replicas at the top level (its GPUs are the
    worker's, read with them), routing and the KV cache only when the manifest has them."""
    reading.item["serving"] = {}
    _copy(reading, spec, "replicas", "serving.replicas")
    if spec.get("kvCacheSpec") is not None:
        reading.item.setdefault("kvCache", {})
    if spec.get("intelligentRoutingSpec.enabled") is True:
        # Set, so that the manifest has it: the CRD's default strategy when it names none.
        reading.item.setdefault("routingStrategy", "prefixaware")


def _dpd(reading: Reading, spec: _Spec) -> None:
    _role(reading, spec, "prefillSpec", "prefill")
    _role(reading, spec, "decodingSpec", "decode")
    _copy(reading, spec, "pdSpec.routingThreshold", "routingThreshold")
    _copy(reading, spec, "pdSpec.topologySpec", "topologySpec")


def engine_of(image: str) -> str:
    """The engine an image runs, guessed from its repository's name: the operator's samples
    name TGI's, DJL LMI's and SGLang's images after them; everything else is taken as vLLM."""
    repository = image.rsplit("/", 1)[-1].split(":", 1)[0].split("@", 1)[0].lower()
    for word, engine in (("tgi", "tgi"), ("djl-inference", "lmi"), ("lmi", "lmi")):
        if word in repository:
            return engine
    return "sglang" if "sglang" in repository else VLLM


# vLLM's own values of the flags typed settings write, for a command line that leaves them out
# (vllm/engine/arg_utils.py, EngineArgs: tensor_parallel_size 1, gpu_memory_utilization 0.9):
# the item writes them, so that the flag the stack adds changes nothing that runs.
VLLM_DEFAULTS = {"tensorParallelSize": 1, "gpuMemoryUtilization": 0.9}

# How each setting an engine's variable stands for is read.
_SETTING_TYPES = {"tensorParallelSize": int, "maxModelLen": int, "gpuMemoryUtilization": float}


def _environment(reading: Reading, spec: _Spec, engine: str) -> None:
    variables = spec.get("worker.environmentVariables")
    path = "worker.environmentVariables"
    if not isinstance(variables, list) or not all(
        isinstance(v, dict) and set(v) == {"name", "value"} for v in variables
    ):
        return
    spec.take(path)
    typed = OTHER_ENGINES[engine].variables() if engine != VLLM else {}
    user = {}
    for variable in variables:
        name, value = variable["name"], variable["value"]
        if name == PD_BUFFER_SIZE and "pdSpec" in spec.spec:
            _set(reading, "pdBufferSize", _number(str(value), int), path)
        elif name in typed and typed[name] in _SETTING_TYPES:
            setting = typed[name]
            _set(reading, setting, _number(str(value), _SETTING_TYPES[setting]), path)
        elif name in typed and value == MODEL_PATH:
            continue  # the folder the settings write: where the operator mounts the weights
        elif not ("pdSpec" in spec.spec and PINNED_ENV.get(name) == value):
            user[name] = value
    _set(reading, "environmentVariables", user or None, path)


def _worker(reading: Reading, spec: _Spec) -> None:
    image = spec.take("worker.image")
    _set(reading, "image", image, "worker.image")
    engine = engine_of(image) if isinstance(image, str) else VLLM
    if engine != VLLM:
        _set(reading, "engine", engine, "worker.image")
        # Its settings come from its variables, even those the manifest leaves out.
        reading.sources |= {k: shown(_path("worker.environmentVariables")) for k in _SETTING_TYPES}
        _copy(reading, spec, "worker.args", "workerArgs")
    else:
        for key, value in VLLM_DEFAULTS.items():
            reading.item[key] = value
        typed = TYPED_FLAGS
        if "pdSpec" not in spec.spec:
            # The serving role's flags are written into the worker's command line.
            serving = {flag: (f"serving.{key}", kind) for flag, (key, kind) in ROLE_FLAGS.items()}
            typed = {**serving, **TYPED_FLAGS}
        _args(reading, spec, "worker.args", "workerArgs", typed)
    _environment(reading, spec, engine)
    _worker_resources(reading, spec)
    unset = OTHER_ENGINES[engine].tensor_parallel_when_unset if engine != VLLM else None
    gpus = (reading.item.get("serving") or {}).get("gpus")
    if gpus == 1:
        unset = 1  # whatever the engine's default, one GPU runs one
    if unset is not None and "tensorParallelSize" not in reading.item:
        reading.item["tensorParallelSize"] = gpus if unset == "all-gpus" else unset
    for name in ("containerPort", "name"):
        _copy(reading, spec, f"worker.modelInvocationPort.{name}", f"modelInvocationPort.{name}")
    for path, key in (("probes", "probes"), ("requestLimits", "requestLimits")):
        _copy(reading, spec, f"worker.{path}", key)
    _copy(reading, spec, "worker.workingDir", "workingDir")
    _copy(reading, spec, "worker.command", "command")
    # Fixed: the round trip holds it to where the operator mounts the weights.
    _copy(reading, spec, "worker.modelVolumeMount.name", "modelVolumeMount.name")
    spec.take("worker.modelVolumeMount")


def _worker_resources(reading: Reading, spec: _Spec) -> None:
    """CPU and memory to workerResources (one map when requests and limits agree); the GPUs
    are the roles' (an aggregated endpoint's serving role's), so a request must equal the
    limit, as Kubernetes has it for extended resources."""
    resources = spec.get("worker.resources")
    if not isinstance(resources, dict) or not set(resources) <= {"requests", "limits"}:
        return
    maps = {key: resources.get(key) or {} for key in ("requests", "limits")}
    if not all(isinstance(m, dict) for m in maps.values()):
        return
    gpus = {key: m.get(GPU_RESOURCE) for key, m in maps.items()}
    if gpus["requests"] is not None and str(gpus["requests"]) != str(gpus["limits"]):
        return
    if "pdSpec" not in spec.spec:
        if gpus["limits"] is None:
            return
        _set(reading, "serving.gpus", _number(str(gpus["limits"]), int), "worker.resources")
    spec.take("worker.resources")
    other = {key: {k: v for k, v in m.items() if k != GPU_RESOURCE} for key, m in maps.items()}
    one_map = other["requests"] == other["limits"]
    _set(reading, "workerResources", other["requests"] if one_map else other, "worker.resources")


def _sized_type(reading: Reading) -> None:
    """The instanceType the stack sizes the pods for, when the manifest places them by
    instanceTypes or nodeAffinity alone: the first type they name that the stack knows, else
    the smallest with the GPUs a pod asks for, noted as chosen (it is never written: the
    placement is)."""
    placement = "instanceTypes" if "instanceTypes" in reading.item else "nodeAffinity"
    if placement == "instanceTypes":
        named = reading.item["instanceTypes"]
    else:
        named = sorted(affinity_types(reading.item.get("nodeAffinity") or {}))
    known = [name for name in named if name in GPU_INSTANCE_TYPES]
    if known:
        _set(reading, "instanceType", known[0], placement)
        return
    gpus = (reading.item.get("serving") or {}).get("gpus")
    fits = [t for t in GPU_INSTANCE_TYPES.values() if isinstance(gpus, int) and t.gpus >= gpus]
    if not fits:
        return
    smallest = min(fits, key=lambda t: (t.gpus, t.hbm_bytes_per_gpu))
    _set(reading, "instanceType", smallest.name, placement)
    reading.chosen.append(
        f"instanceType {smallest.name}: the manifest names no instance type ({placement} "
        "picks the nodes), and the stack sizes the pods for one; set the type of those nodes"
    )


def _top_level(reading: Reading, spec: _Spec) -> None:
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
        _copy(reading, spec, path, key)
    routing = spec.get("intelligentRoutingSpec")
    if isinstance(routing, dict) and isinstance(routing.get("enabled"), bool):
        if routing["enabled"] is False:
            _set(reading, "routingEnabled", False, "intelligentRoutingSpec.enabled")
        spec.take("intelligentRoutingSpec.enabled")
        _copy(reading, spec, "intelligentRoutingSpec.routingStrategy", "routingStrategy")
    tags = spec.get("tags")
    if isinstance(tags, list) and all(
        isinstance(t, dict) and set(t) == {"name", "value"} for t in tags
    ):
        spec.take("tags")
        _set(reading, "tags", {t["name"]: t["value"] for t in tags}, "tags")


def _why_owned(owner: str | Fixed) -> str:
    if isinstance(owner, Fixed):
        return f"is fixed by the stack, because {owner.why}"
    return f"is written by the setting {owner}, which cannot write this value"


def owners_of(spec: dict[str, Any]) -> Owners:
    """The fields the settings own in the manifest's mode: DPD with pdSpec, else aggregated."""
    return DPD_FIELDS if "pdSpec" in spec else AGGREGATED_FIELDS


def _rest(reading: Reading, spec: _Spec) -> None:
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
    # A setting a flag writes comes from the command line, even when the flag is missing (a
    # required maxModelLen is refused naming worker.args).
    reading.sources |= {key: "spec.worker.args" for key, _ in TYPED_FLAGS.values()}
    if "namespace" in manifest.body["metadata"]:
        reading.item["namespace"] = manifest.namespace
        reading.sources["namespace"] = "metadata.namespace"
    reading.item["adopted"] = True
    spec = _Spec(manifest.spec)
    _top_level(reading, spec)
    _model_source(reading, spec)
    _metrics(reading, spec)
    _kv_cache(reading, spec)
    if "pdSpec" in spec.spec:
        _dpd(reading, spec)
    else:
        _serving(reading, spec)
    _worker(reading, spec)
    if "instanceType" not in reading.item:
        _sized_type(reading)
    _rest(reading, spec)
    return reading
