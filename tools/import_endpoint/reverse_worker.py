"""The worker of an InferenceEndpointConfig read back into the item's settings: its engine
and image, the command line (vLLM's flags to their settings), the environment, the resources
and the port. Part of reverse.py's reading."""

from __future__ import annotations

from components.endpoint.engines.engine import OTHER_ENGINES, VLLM, unwritten_variables
from components.endpoint.environment import PD_BUFFER_SIZE, PINNED_ENV
from components.endpoint.flags import canonical_flag, split_flags
from components.endpoint.vllm_args import FIXED_WORKER_FLAGS, MODEL_PATH
from components.endpoint.worker import GPU_RESOURCE
from tools.import_endpoint.reading import (
    Reading,
    SpecView,
    copy_key,
    number,
    set_key,
    shown,
    spec_path,
)

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


def read_args(
    reading: Reading, spec: SpecView, path: str, key: str, typed: dict[str, tuple[str, type]]
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
            set_key(reading, f"{prefix}{setting}", number(value, kind), path)
        elif not (
            key == "workerArgs" and value is not None and FIXED_WORKER_FLAGS.get(flag) == value
        ):
            rest.extend(tokens)
    if rest:
        set_key(reading, key, rest, path)


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


def _environment(reading: Reading, spec: SpecView, engine: str) -> None:
    variables = spec.get("worker.environmentVariables")
    path = "worker.environmentVariables"
    if not isinstance(variables, list) or not all(
        isinstance(v, dict) and set(v) in ({"name", "value"}, {"name", "valueFrom"})
        for v in variables
    ):
        return
    spec.take(path)
    typed = OTHER_ENGINES[engine].variables() if engine != VLLM else {}
    user, filled = {}, {}
    for variable in variables:
        name, value = variable["name"], variable.get("value")
        if "valueFrom" in variable:
            filled[name] = variable["valueFrom"]
        elif name == PD_BUFFER_SIZE and "pdSpec" in spec.spec:
            set_key(reading, "pdBufferSize", number(str(value), int), path)
        elif name in typed and typed[name] in _SETTING_TYPES:
            setting = typed[name]
            set_key(reading, setting, number(str(value), _SETTING_TYPES[setting]), path)
        elif name in typed and value == MODEL_PATH:
            continue  # the folder the settings write: where the operator mounts the weights
        elif not ("pdSpec" in spec.spec and PINNED_ENV.get(name) == value):
            user[name] = value
    set_key(reading, "environmentVariables", user or None, path)
    set_key(reading, "environmentFrom", filled or None, path)


def read_worker(reading: Reading, spec: SpecView) -> None:
    image = spec.take("worker.image")
    set_key(reading, "image", image, "worker.image")
    engine = engine_of(image) if isinstance(image, str) else VLLM
    if engine != VLLM:
        set_key(reading, "engine", engine, "worker.image")
        # Its settings come from its variables, even those the manifest leaves out.
        reading.sources |= {
            k: shown(spec_path("worker.environmentVariables")) for k in _SETTING_TYPES
        }
        copy_key(reading, spec, "worker.args", "workerArgs")
    else:
        for key, value in VLLM_DEFAULTS.items():
            reading.item[key] = value
        typed = TYPED_FLAGS
        if "pdSpec" not in spec.spec:
            # The serving role's flags are written into the worker's command line.
            serving = {flag: (f"serving.{key}", kind) for flag, (key, kind) in ROLE_FLAGS.items()}
            typed = {**serving, **TYPED_FLAGS}
        read_args(reading, spec, "worker.args", "workerArgs", typed)
    _environment(reading, spec, engine)
    _worker_resources(reading, spec)
    unset = OTHER_ENGINES[engine].tensor_parallel_when_unset if engine != VLLM else None
    gpus = (reading.item.get("serving") or {}).get("gpus")
    if gpus == 1:
        unset = 1  # whatever the engine's default, one GPU runs one
    if unset is not None and "tensorParallelSize" not in reading.item:
        reading.item["tensorParallelSize"] = gpus if unset == "all-gpus" else unset
    elif engine != VLLM and isinstance(gpus, int) and "tensorParallelSize" in reading.item:
        # Spelled out though the engine runs the same without it: kept, as the stack omits it.
        tp = reading.item["tensorParallelSize"]
        kept = unwritten_variables(engine, tensor_parallel_size=tp, pod_gpus=gpus)
        if kept:
            reading.item["environmentVariables"] = {
                **reading.item.get("environmentVariables", {}),
                **kept,
            }
    for name in ("containerPort", "name"):
        copy_key(reading, spec, f"worker.modelInvocationPort.{name}", f"modelInvocationPort.{name}")
    for path, key in (("probes", "probes"), ("requestLimits", "requestLimits")):
        copy_key(reading, spec, f"worker.{path}", key)
    copy_key(reading, spec, "worker.workingDir", "workingDir")
    copy_key(reading, spec, "worker.command", "command")
    # Fixed: the round trip holds it to where the operator mounts the weights.
    copy_key(reading, spec, "worker.modelVolumeMount.name", "modelVolumeMount.name")
    spec.take("worker.modelVolumeMount")


def _worker_resources(reading: Reading, spec: SpecView) -> None:
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
        spec.take("worker.resources")
        reading.problems.append(
            (
                shown(("worker", "resources", GPU_RESOURCE)),
                f"requests {gpus['requests']} and limits {gpus['limits']}, which Kubernetes "
                "refuses: an extended resource's request must equal its limit, so the pods "
                "would never be created",
            )
        )
        return
    if "pdSpec" not in spec.spec:
        if gpus["limits"] is None:
            return
        set_key(reading, "serving.gpus", number(str(gpus["limits"]), int), "worker.resources")
    spec.take("worker.resources")
    other = {key: {k: v for k, v in m.items() if k != GPU_RESOURCE} for key, m in maps.items()}
    one_map = other["requests"] == other["limits"]
    set_key(reading, "workerResources", other["requests"] if one_map else other, "worker.resources")
