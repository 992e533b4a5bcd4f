"""Which engine an endpoint's pods run, what the settings write for it, and its rules.

DPD runs vLLM only: the operator wires prefill and decode through LMCache's PD backend inside
vLLM. An aggregated endpoint may run TGI, LMI or SGLang, whose settings (tensorParallelSize,
maxModelLen, gpuMemoryUtilization) are written as the variables each reads.
"""

from typing import Literal

from components.core.findings import Finding, error
from components.endpoint.engines.lmi import LMI
from components.endpoint.engines.sglang import SGLANG
from components.endpoint.engines.tgi import TGI
from components.endpoint.engines.vocabulary import EngineVocabulary

EngineName = Literal["vllm", "tgi", "lmi", "sglang"]
VLLM = "vllm"
# vLLM's OpenAI server on the operator's vLLM images: the port vllm_args.py writes.
VLLM_PORT = 8000
OTHER_ENGINES: dict[str, EngineVocabulary] = {"tgi": TGI, "lmi": LMI, "sglang": SGLANG}
# The autoscaling metrics that are vLLM's series (autoscaling.py); `concurrent` is the
# operator's, and `query` the user's own.
VLLM_METRICS = ("waiting", "running")


def engine_port(engine: str) -> int:
    return VLLM_PORT if engine == VLLM else OTHER_ENGINES[engine].port


def engine_variables(
    engine: str,
    *,
    tensor_parallel_size: int,
    max_model_len: int | None,
    model_path: str,
    gpu_memory_utilization: float | None,
) -> dict[str, str]:
    """The variables the settings write for an engine other than vLLM (none for vLLM, whose
    flags vllm_args.py writes). gpuMemoryUtilization is written only when set: each engine's
    own default differs from the DPD tuning the setting defaults to."""
    if engine == VLLM:
        return {}
    words = OTHER_ENGINES[engine]
    out = {words.tensor_parallel_size: str(tensor_parallel_size)}
    if max_model_len is not None:
        out[words.max_model_len] = str(max_model_len)
    if gpu_memory_utilization is not None:
        out[words.gpu_memory_utilization] = str(gpu_memory_utilization)
    if words.model_path:
        out[words.model_path] = model_path
    return out


def check_engine_variables(engine: str, variables: dict[str, str]) -> list[Finding]:
    """environmentVariables may not set what a setting writes for the engine."""
    if engine == VLLM:
        return []
    owned = OTHER_ENGINES[engine].variables()
    return [
        error(
            "typed-variable-in-environment",
            f"environmentVariables.{name}",
            f"is written from {owned[name]} for {OTHER_ENGINES[engine].title}; set that instead",
        )
        for name in variables
        if name in owned
    ]


def check_engine_image(engine: str, image: str, image_set: bool) -> list[Finding]:
    if engine == VLLM or image_set:
        return []
    words = OTHER_ENGINES[engine]
    return [
        error(
            "engine-without-image",
            "image",
            f"the default image runs vLLM; engine {engine} needs an image of "
            f"{words.title}, such as {words.image}",
        )
    ]


def check_engine_metrics(engine: str, metrics: dict[str, str]) -> list[Finding]:
    """A role autoscaling on vLLM's series (`metrics`: field -> metric) under another engine
    would read nothing and never scale."""
    if engine == VLLM:
        return []
    return [
        error(
            "vllm-metric-under-another-engine",
            field,
            f"{metric!r} is vLLM's series, which {OTHER_ENGINES[engine].title} does not export; "
            "use concurrent (the operator's) or your own query",
        )
        for field, metric in metrics.items()
        if metric in VLLM_METRICS
    ]


def check_engine_features(engine: str, *keys: str | None) -> list[Finding]:
    """Intelligent routing and the KV cache on another engine than vLLM, by the key that turns
    each on: they "currently support only vLLM-based inference containers" (AWS, "KV caching
    and intelligent routing")."""
    if engine == VLLM:
        return []
    return [
        error(
            "vllm-only-feature",
            key,
            f'is not allowed with {OTHER_ENGINES[engine].title}: AWS says "KV caching and '
            'intelligent routing currently support only vLLM-based inference containers"; '
            "remove it, or serve with engine: vllm",
        )
        for key in keys
        if key is not None
    ]


def check_dpd_engine(engine: str) -> list[Finding]:
    if engine == VLLM:
        return []
    return [
        error(
            "dpd-needs-vllm",
            "engine",
            f"{engine} cannot serve DPD: the operator moves the KV between prefill and decode "
            "through LMCache inside vLLM; set engine: vllm, or serve aggregated",
        )
    ]
