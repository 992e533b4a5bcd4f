"""What an engine other than vLLM reads the typed settings from: the environment variables its
image turns into its server's options, and the port the image serves on.

vLLM's own vocabulary, flags on its command line, is vllm_args.py.
"""

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class EngineVocabulary:
    """An engine's image and the variables it reads each setting from."""

    title: str
    # The port the engine's images listen on.
    port: int
    # An image that runs it, for the message that asks for one.
    image: str
    tensor_parallel_size: str
    max_model_len: str
    gpu_memory_utilization: str
    # The variable that names the weights' folder, when the image needs one (it gets the
    # folder the operator mounts them at).
    model_path: str | None = None
    # The tensor parallelism the engine runs with its variable unset: a GPU count, every GPU
    # the pod has, or None where no source says (what an adopted endpoint is sized for).
    tensor_parallel_when_unset: int | Literal["all-gpus"] | None = None

    def variables(self) -> dict[str, str]:
        named = {
            self.tensor_parallel_size: "tensorParallelSize",
            self.max_model_len: "maxModelLen",
            self.gpu_memory_utilization: "gpuMemoryUtilization",
        }
        if self.model_path:
            named[self.model_path] = "modelSource (the folder the operator mounts)"
        return named
