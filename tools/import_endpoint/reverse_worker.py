"""The worker of an InferenceEndpointConfig read back into the item's settings: its engine
and image, the command line and the environment as they are, the resources and the port. Part
of reverse.py's reading."""

from components.endpoint.engines.engine import VLLM
from components.endpoint.worker import GPU_RESOURCE
from tools.import_endpoint.reading import Reading, SpecView, copy_key, number, set_key, shown


def read_args(reading: Reading, spec: SpecView, path: str, key: str) -> None:
    """A command line as the live object has it, in its order and spelling: an adopted
    endpoint's settings are read from it (components/endpoint/adopted.py)."""
    args = spec.get(path)
    if isinstance(args, list) and all(isinstance(a, str) for a in args):
        set_key(reading, key, spec.take(path), path)


def engine_of(image: str) -> str:
    """The engine an image runs, guessed from its repository's name: the operator's samples
    name TGI's, DJL LMI's and SGLang's images after them; everything else is taken as vLLM."""
    repository = image.rsplit("/", 1)[-1].split(":", 1)[0].split("@", 1)[0].lower()
    for word, engine in (("tgi", "tgi"), ("djl-inference", "lmi"), ("lmi", "lmi")):
        if word in repository:
            return engine
    return "sglang" if "sglang" in repository else VLLM


def _environment(reading: Reading, spec: SpecView) -> None:
    """The variables as the live object has them: an adopted endpoint's engine settings and
    DPD buffer are read from them."""
    variables = spec.get("worker.environmentVariables")
    path = "worker.environmentVariables"
    if not isinstance(variables, list) or not all(
        isinstance(v, dict) and set(v) in ({"name", "value"}, {"name", "valueFrom"})
        for v in variables
    ):
        return
    spec.take(path)
    user = {v["name"]: v["value"] for v in variables if "value" in v}
    filled = {v["name"]: v["valueFrom"] for v in variables if "valueFrom" in v}
    set_key(reading, "environmentVariables", user if user or not filled else None, path)
    set_key(reading, "environmentFrom", filled or None, path)


def read_worker(reading: Reading, spec: SpecView) -> None:
    image = spec.take("worker.image")
    set_key(reading, "image", image, "worker.image")
    engine = engine_of(image) if isinstance(image, str) else VLLM
    if engine != VLLM:
        set_key(reading, "engine", engine, "worker.image")
    read_args(reading, spec, "worker.args", "workerArgs")
    _environment(reading, spec)
    _worker_resources(reading, spec)
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
    """CPU and memory to workerResources (one map when requests and limits agree), the GPUs
    to the roles' (an aggregated endpoint's serving role's) `gpus`, where they write them
    back; else all of it as it is (`asWritten`), with `gpus` only sizing the pods. A GPU
    request must equal its limit, as Kubernetes has it for extended resources."""
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
    spec.take("worker.resources")
    whole = number(str(gpus["limits"]), int) if gpus["limits"] is not None else None
    roles = [reading.item.get(r) or {} for r in ("prefill", "decode")]
    pod = max((r.get("gpus", 8) for r in roles), default=8) if "pdSpec" in spec.spec else whole
    if "pdSpec" not in spec.spec:
        set_key(reading, "serving.gpus", whole or 1, "worker.resources")
        if not whole:
            reading.chosen.append(
                "serving.gpus 1, for the stack's figures: the pods request no whole GPU"
            )
    if not whole or whole != pod or gpus["requests"] is None or set(resources) != set(maps):
        set_key(reading, "workerResources", {**resources, "asWritten": True}, "worker.resources")
        return
    other = {key: {k: v for k, v in m.items() if k != GPU_RESOURCE} for key, m in maps.items()}
    one_map = other["requests"] == other["limits"]
    set_key(reading, "workerResources", other["requests"] if one_map else other, "worker.resources")
