"""A scenario: a model, an instance type, an engine, a layout and a workload.

The keys are a stack config's: `model` ({name} from the catalog, {configFile, parameters} or
explicit architecture fields), `precision`, `instanceType`, `engine`, then either `serving`
(aggregated) or `prefill` and `decode` (disaggregated), and `workload`.
"""

import json
import math
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from components.cluster.instance_types import DPD_INSTANCE_TYPES, GPU_INSTANCE_TYPES
from components.core.regions import AwsRegion
from components.core.spec import Spec
from components.core.user_files import UnreadableFileError, read_text
from components.endpoint.spec import Workload
from components.model.architecture import ModelArchitecture
from components.model.catalog import MODEL_CATALOG, catalog_id_for_model_name
from components.model.hf_config import HF_DTYPES, MAX_CONFIG_BYTES, architecture_from_hf_config
from planner.efficiency import Engine
from planner.model_costs import model_costs

# GEMM precisions: weights and activations alike (bf16, fp8, fp4, int8), or 4-bit integer
# weights with 16-bit activations (w4a16: AWQ, GPTQ).
Precision = Literal["bf16", "fp8", "fp4", "int8", "w4a16"]
# What people call the same GEMM precisions.
PRECISION_ALIASES = {
    **dict.fromkeys(("bfloat16", "fp16", "float16", "half"), "bf16"),
    **dict.fromkeys(("float8", "fp8_e4m3", "e4m3"), "fp8"),
    **dict.fromkeys(("mxfp4", "nvfp4", "float4"), "fp4"),
    # Integer formats: INT8 GEMMs have their own peak (B300 has almost none), and 4-bit
    # integer checkpoints (AWQ, GPTQ) keep 16-bit activations.
    "w8a8": "int8",
    **dict.fromkeys(("int4", "awq", "gptq"), "w4a16"),
}
# For scenarios that name the GPU: its newest instance type, the table's last row with it
# (ml.p5en.48xlarge for H200).
INSTANCE_TYPE_BY_GPU = {t.gpu.lower(): name for name, t in DPD_INSTANCE_TYPES.items()}
# Weights' bytes per parameter: FP4 formats carry a scale per block (NVFP4: one FP8 scale per
# 16 values, 4.5 bits; MXFP4: one 8-bit scale per 32, 4.25 bits); AWQ and GPTQ a 16-bit scale
# and a 4-bit zero point per group of 128 (4.16 bits).
PRECISION_WEIGHT_BYTES = {
    "bf16": 2.0,
    "fp8": 1.0,
    "fp4": 4.5 / 8,
    "int8": 1.0,
    "w4a16": (4 + 20 / 128) / 8,
}
KvDtype = Literal["bf16", "fp8"]
# How the KV moves from prefill to decode: LMCache's PD backend (HyperPod's: sent after the
# forward pass, the prefiller waiting for it), or a NIXL connector that the decoder pulls from
# while the prefiller goes on (vLLM's NixlConnector, Dynamo, SGLang's and TensorRT-LLM's).
KvConnector = Literal["lmcache", "nixl"]
# The most tokens a step may draft (vLLM's num_speculative_tokens; MTP and EAGLE use 1 to 7).
MAX_DRAFT_TOKENS = 15
_DRAFTS = re.compile(r"(?:[a-z][a-z0-9]*?[-_:]?)?([0-9]{1,2})", re.ASCII)
NO_DRAFTS = ("off", "none", "no", "false", "0")


class ScenarioError(ValueError):
    """A scenario the model can't predict; the message starts with the key to fix."""


def draft_tokens(value: Any) -> int:
    """Drafted tokens per step from `mtp3`, `eagle-4`, `3`, or off."""
    if value is None or value is False or value == 0:
        return 0
    if isinstance(value, bool):
        raise ValueError("must name the drafted tokens per step, such as mtp3; true says none")
    if isinstance(value, int):
        # Not through str(): a 5,000-digit number is more than Python will print.
        value = str(value) if abs(value) < 10**6 else "the number given"
    elif isinstance(value, float):
        value = f"{value:g}" if math.isfinite(value) and abs(value) < 1e6 else "the number given"
    text = str(value).strip().lower()
    if text in NO_DRAFTS:
        return 0
    found = _DRAFTS.fullmatch(text)
    drafts = int(found.group(1)) if found else 0
    if not 1 <= drafts <= MAX_DRAFT_TOKENS:
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise ValueError(
            f"{shown!r} is not a number of drafted tokens; write the method and the tokens it "
            f"drafts per step (mtp3, eagle4), a whole number 1 to {MAX_DRAFT_TOKENS}, or off"
        )
    return drafts


class ScenarioWorkload(Workload):
    """The endpoint's workload keys, and how a benchmark ran: its requests in all, and
    whether it measured only once its clients had settled."""

    # Requests a run sends: over its `concurrency` clients (None: ten a client, the
    # convention of InferenceMAX's sweeps, `--num-prompts` = 10 x concurrency), or at
    # `requestsPerSecond` (None: for ever, so past capacity the queue has no end).
    requests: int | None = Field(None, ge=1)
    # The run measured only the rounds after its first wave (genai-perf's stable windows).
    steady_state: bool = False

    def share_below(self, threshold: int) -> float:
        """The share of prompts shorter than `threshold` tokens, their lengths spread evenly
        over typicalInputTokens x (1 +/- lengthSpread)."""
        typical = self.typical_input_tokens or 0
        low, width = typical * (1 - self.length_spread), 2 * typical * self.length_spread
        if width <= 0:
            return 1.0 if typical < threshold else 0.0
        return min(max((threshold - low) / width, 0.0), 1.0)


class ScenarioModel(Spec):
    """A catalog id, or a config.json (parameters counted from it when not given)."""

    name: str | None = None
    config_file: str | None = None
    parameters: float | None = Field(None, gt=0)

    @model_validator(mode="after")
    def _one_source(self) -> "ScenarioModel":
        if (self.name is None) == (self.config_file is None):
            raise ValueError("set name (a catalog id) or configFile, one of them")
        return self


class RoleLayout(Spec):
    replicas: int = Field(1, ge=1)
    # None: the fewest GPUs of the node that hold the weights and one request's KV.
    tensor_parallel: int | None = Field(None, ge=1)
    # 0 (or true): every GPU of the replica.
    expert_parallel: int = Field(1, ge=0)
    data_parallel_attention: int = Field(1, ge=1)
    # The engine's batch limit (--max-num-seqs); None is the engine's default.
    max_num_seqs: int | None = Field(None, ge=1)

    @field_validator("expert_parallel", mode="before")
    @classmethod
    def _switch_or_size(cls, value: Any) -> Any:
        # vLLM's --enable-expert-parallel is a switch: true spreads the experts over every GPU
        # of the replica, which `expert_parallel_size` resolves.
        return (0 if value else 1) if isinstance(value, bool) else value


# vLLM's --gpu-memory-utilization and TensorRT-LLM's kv_cache_free_gpu_memory_fraction
# default to 0.9, SGLang's --mem-fraction-static to about as much on 80 GB and larger GPUs.
ENGINE_MEMORY_UTILIZATION = 0.9
# Keys a scenario file may carry to describe itself or a measurement it records; the model
# reads none of them.
ANNOTATION_KEYS = frozenset((
    "id", "publisher", "date", "notes", "source", "measured", "measuredP99", "gpu", "kind",
    "estimated", "latencyBound", "achievedRequestsPerSecond",
))  # fmt: skip


class Scenario(Spec):
    model: ScenarioModel | ModelArchitecture
    # None: the checkpoint's own (DeepSeek and MiniMax-M2 FP8, GPT-OSS MXFP4, else BF16).
    precision: Precision | None = None
    instance_type: str
    engine: Engine = "vllm"
    serving: RoleLayout | None = None
    prefill: RoleLayout | None = None
    decode: RoleLayout | None = None
    workload: ScenarioWorkload = ScenarioWorkload()
    # None: the model's dtype (BF16). FP8 halves the KV bytes read and moved.
    kv_cache_dtype: KvDtype | None = None
    kv_connector: KvConnector = "lmcache"
    # The share of HBM the engine takes for weights, activations and the KV pool (vLLM
    # --gpu-memory-utilization, SGLang --mem-fraction-static). None: the engines' own 0.9 for
    # a prediction, which describes a run; the endpoints' 0.75 for a recommendation, which
    # plans one (utilization()).
    gpu_memory_utilization: float | None = Field(None, gt=0, le=1)
    # For prices; None: the price table's default.
    region: AwsRegion | None = None
    name: str | None = None
    description: str | None = None
    # Speculative decoding (e.g. mtp3, eagle3): drafts this many tokens per step; 0: none.
    speculative_decoding: int = 0
    # Disaggregated: prompts shorter than this many tokens skip the prefill role and are
    # prefilled on a decoder (the operator's router, pdSpec.routingThreshold); None: none do.
    routing_threshold: int | None = Field(None, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _annotations_aside(cls, value: Any) -> Any:
        if isinstance(value, dict):
            return {key: item for key, item in value.items() if key not in ANNOTATION_KEYS}
        return value

    @field_validator("model", mode="wrap")
    @classmethod
    def _model_form(cls, value: Any, handler: Any) -> Any:
        # Pick the form from the value's shape, so problems name the user's keys.
        if isinstance(value, str):
            value = {"name": value}
        if isinstance(value, dict) and (
            ("name" in value and "layers" not in value) or "configFile" in value
        ):
            return ScenarioModel.model_validate(value)
        if isinstance(value, dict):
            return ModelArchitecture.model_validate(value)
        return handler(value)

    @field_validator("speculative_decoding", mode="before")
    @classmethod
    def _drafts(cls, value: Any) -> Any:
        return draft_tokens(value)

    @field_validator("precision", "kv_cache_dtype", mode="before")
    @classmethod
    def _precision_alias(cls, value: Any, info: ValidationInfo) -> Any:
        if not isinstance(value, str):
            return value
        lowered = value.lower()
        # A KV cache dtype of `auto` is the model's (vLLM's default), BF16 here.
        if lowered == "auto" and info.field_name == "kv_cache_dtype":
            return "bf16"
        return PRECISION_ALIASES.get(lowered, lowered)

    @field_validator("instance_type", mode="before")
    @classmethod
    def _gpu_instance_type(cls, value: Any) -> Any:
        if isinstance(value, str) and not value.startswith("ml."):
            value = INSTANCE_TYPE_BY_GPU.get(value.lower(), f"ml.{value}")
        if not isinstance(value, str) or value not in GPU_INSTANCE_TYPES:
            raise ValueError(f"must be one of {', '.join(GPU_INSTANCE_TYPES)}")
        return value

    @field_validator("engine", mode="before")
    @classmethod
    def _engine_alias(cls, value: Any) -> Any:
        if isinstance(value, str):
            lowered = value.lower().replace("-", "").replace("_", "")
            return {"tensorrtllm": "trtllm", "trtllm": "trtllm"}.get(lowered, lowered)
        return value

    @model_validator(mode="after")
    def _one_serving_form(self) -> "Scenario":
        if self.serving is not None and (self.prefill or self.decode):
            raise ValueError("set serving (aggregated) or prefill and decode, not both")
        if self.disaggregated and self.instance_type not in DPD_INSTANCE_TYPES:
            raise ValueError(
                f"instanceType {self.instance_type} does not run DPD: prefill and decode need "
                f"one of {', '.join(DPD_INSTANCE_TYPES)}; set serving to plan it aggregated"
            )
        return self

    def utilization(self, default: float = ENGINE_MEMORY_UTILIZATION) -> float:
        return self.gpu_memory_utilization or default

    @property
    def disaggregated(self) -> bool:
        return self.prefill is not None or self.decode is not None


def _read_config(model: ScenarioModel, base_dir: Path | None) -> ModelArchitecture:
    key = f"scenario.model.configFile: {model.config_file}"
    path = Path(model.config_file)
    # Beside the scenario when anything is there (the reader then says what it is).
    if not path.is_absolute() and base_dir is not None and (base_dir / path).exists():
        path = base_dir / path
    try:
        # As the stack reads a config.json: regular files only, size-capped (no FIFO or
        # /dev/zero), UTF-8 or a byte order mark.
        config = json.loads(read_text(path, MAX_CONFIG_BYTES))
    except UnreadableFileError as unreadable:
        raise ScenarioError(f"{key}: {unreadable}") from None
    except (json.JSONDecodeError, RecursionError) as unreadable:
        raise ScenarioError(f"{key}: not a readable JSON file ({unreadable})") from None
    if not isinstance(config, dict):
        raise ScenarioError(f"{key}: not a config.json object")
    try:
        # Weights' bytes come from the scenario's precision, so any quantization_config is
        # taken rather than refused; 2 bytes stands until then.
        architecture = architecture_from_hf_config(
            _served_dtype(config),
            name=model.config_file,
            parameters=model.parameters or 1.0,
            weight_bytes_per_parameter=_checkpoint_bytes(config),
        )
    except ValueError as unreadable:
        raise ScenarioError(f"{key}: {unreadable}") from None
    if model.parameters is None:
        counted = model_costs(architecture).shape_parameters
        if architecture.hidden_size is None or counted <= 0:
            raise ScenarioError(
                f"scenario.model.parameters: {model.config_file} has no hidden_size to count "
                "parameters from; set parameters"
            )
        architecture = architecture.model_copy(update={"parameters": counted})
    return architecture


def _served_dtype(config: dict[str, Any]) -> dict[str, Any]:
    """`config` with a dtype the KV cache takes: checkpoints stored in FP8 or integers (their
    torch_dtype says so) keep their KV cache in BF16, as vLLM's `auto` does."""
    nested = config.get("text_config") if isinstance(config.get("text_config"), dict) else {}
    dtype = config.get("dtype") or config.get("torch_dtype") or nested.get("torch_dtype")
    if dtype is None or dtype in HF_DTYPES:
        return config
    return {**config, "dtype": "bfloat16", "torch_dtype": "bfloat16"}


def _checkpoint_bytes(config: dict[str, Any]) -> float:
    """Bytes per parameter the checkpoint stores, from its quantization_config."""
    quantization = config.get("quantization_config") or (config.get("text_config") or {}).get(
        "quantization_config"
    )
    if not isinstance(quantization, dict):
        return 2.0
    described = json.dumps(quantization).lower()
    if "fp4" in described or quantization.get("bits") == 4 or "int4" in described:
        return PRECISION_WEIGHT_BYTES["fp4"]
    if "fp8" in described or "float8" in described or quantization.get("bits") == 8:
        return 1.0
    return 2.0


def resolve_model(scenario: Scenario, base_dir: Path | None = None) -> ModelArchitecture:
    """The architecture the scenario serves; ScenarioError names the key when there is none."""
    model = scenario.model
    if isinstance(model, ModelArchitecture):
        return model
    if model.config_file is not None:
        return _read_config(model, base_dir)
    catalog_id = (
        model.name if model.name in MODEL_CATALOG else catalog_id_for_model_name(model.name)
    )
    if catalog_id is None:
        raise ScenarioError(
            f"scenario.model.name: {model.name!r} is no catalog model; allowed: "
            f"{', '.join(MODEL_CATALOG)}, or {{configFile: <path to config.json>}}"
        )
    architecture = MODEL_CATALOG[catalog_id]
    if model.parameters is not None:
        architecture = architecture.model_copy(update={"parameters": model.parameters})
    return architecture


def precision_of(scenario: Scenario, model: ModelArchitecture) -> Precision:
    """The scenario's precision, else the checkpoint's own."""
    if scenario.precision is not None:
        return scenario.precision
    stored = model.weight_bytes_per_parameter or model.kv_dtype_bytes
    if stored <= PRECISION_WEIGHT_BYTES["fp4"] + 0.01:
        return "fp4"
    return "fp8" if stored <= 1.0 else "bf16"


def weight_bytes_per_parameter(precision: Precision, model: ModelArchitecture) -> float:
    """What the weights take: the precision's bytes, or the checkpoint's when it stores fewer
    (GPT-OSS keeps MXFP4 experts whatever the GEMMs run in)."""
    stored = model.weight_bytes_per_parameter or model.kv_dtype_bytes
    return (
        min(PRECISION_WEIGHT_BYTES[precision], stored)
        if stored < 1
        else PRECISION_WEIGHT_BYTES[precision]
    )
