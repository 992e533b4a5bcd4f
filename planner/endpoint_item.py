"""`plan recommend --emit-endpoint`: the recommended layout as a `hyperpod-dpd:endpoints` item,
with every setting the prediction assumed, so that rendered in a stack it predicts the same.

A disaggregated winner becomes `prefill` and `decode` roles, an aggregated one a `serving`
block; a scenario naming `serving` or `prefill` and `decode` gets that mode's cheapest layout.
The model is named as it is published. Both carry the tensorParallelSize, each role's replicas,
GPUs and --max-num-seqs, the gpuMemoryUtilization, the routingThreshold, autoscaling between
one replica and the recommended count, the model's architecture and the workload with its SLO.
What an endpoint cannot say (another engine, INT8 or W4A16 kernels, an FP8 KV cache,
speculative decoding) is refused naming the scenario's key.
"""

import math
import os
import re
from pathlib import Path
from typing import Any

from components.endpoint.spec import GPU_MEMORY_UTILIZATION
from components.model.architecture import ModelArchitecture
from components.model.catalog import MODEL_CATALOG, PUBLISHED
from planner.endpoint_scenario import EXPERT_PARALLEL_FLAG
from planner.predict import Prediction, RolePrediction
from planner.recommend import Option, Recommendation
from planner.scenario import (
    PRECISION_WEIGHT_BYTES,
    Scenario,
    ScenarioError,
    ScenarioModel,
    precision_of,
    resolve_model,
)

# An endpoint's name leaves room for its generation (`-g<digest>`, 7) and
# `-<namespace>-routing-service` within 63 characters.
NAME_MAX = 30
NAMESPACE = "default"
# The precisions whose weights' bytes say which kernel vLLM runs.
EMITTABLE_PRECISIONS = ("bf16", "fp8", "fp4")


def _refuse(key: str, problem: str) -> ScenarioError:
    return ScenarioError(f"scenario.{key}: {problem}; --emit-endpoint writes what the stack runs")


def _check_emittable(scenario: Scenario, model: ModelArchitecture) -> None:
    if scenario.engine != "vllm":
        raise _refuse("engine", f"{scenario.engine} is not what endpoints serve with (vLLM)")
    precision = precision_of(scenario, model)
    if precision not in EMITTABLE_PRECISIONS:
        raise _refuse(
            "precision",
            f"{precision} is not told apart from {'fp8' if precision == 'int8' else 'fp4'} by "
            "an endpoint's architecture, which gives only the weights' bytes",
        )
    if scenario.kv_cache_dtype not in (None, "bf16" if model.dtype != "fp8" else "fp8"):
        raise _refuse("kvCacheDtype", "endpoints keep the KV cache in the model's dtype")
    if scenario.speculative_decoding:
        raise _refuse("speculativeDecoding", "endpoints do not draft tokens")


def _name(scenario: Scenario, model: ModelArchitecture) -> str:
    text = (scenario.name or model.name).lower()
    name = re.sub(r"[^a-z0-9]+", "-", Path(text).stem if text.endswith(".json") else text)
    name = name.strip("-")[:NAME_MAX].strip("-") or "endpoint"
    return name if name[0].isalpha() else f"m-{name}"[:NAME_MAX]


def _architecture(
    scenario: Scenario, base_dir: Path | None, model: ModelArchitecture
) -> str | dict[str, Any]:
    """What the endpoint's `architecture` says: the catalog id, the config.json, or fields."""
    precision = precision_of(scenario, model)
    native = precision_of(scenario.model_copy(update={"precision": None}), model) == precision
    source = scenario.model
    if isinstance(source, ScenarioModel) and source.name in MODEL_CATALOG and native:
        return source.name
    if isinstance(source, ScenarioModel) and source.config_file is not None and native:
        path = Path(source.config_file)
        if not path.is_absolute() and base_dir is not None and (base_dir / path).is_file():
            path = base_dir / path
        return {"configFile": os.path.relpath(path.resolve()), "parameters": model.parameters}
    # Another precision than the checkpoint's: its weights' bytes, written out.
    fields = model.model_copy(
        update={"weight_bytes_per_parameter": PRECISION_WEIGHT_BYTES[precision]}
    )
    return fields.model_dump(by_alias=True, exclude_none=True, exclude_defaults=True) | {
        "layers": model.layers,
        "parameters": model.parameters,
    }


def _role(role: RolePrediction) -> dict[str, Any]:
    out: dict[str, Any] = {
        "replicas": role.replicas,
        "gpus": role.tensor_parallel,
        "maxNumSeqs": role.max_num_seqs,
    }
    if role.replicas > 1:
        out["autoscaling"] = {"minReplicas": 1, "maxReplicas": role.replicas}
    return out


def chosen(recommendation: Recommendation, disaggregated: bool | None = None) -> Option | None:
    """The layout to emit: the winner, or the disaggregated or aggregated one if asked."""
    if disaggregated is None:
        disaggregated = recommendation.disaggregation_pays or recommendation.aggregated is None
    return recommendation.disaggregated if disaggregated else recommendation.aggregated


def endpoint_item(
    scenario: Scenario,
    recommendation: Recommendation,
    base_dir: Path | None = None,
    *,
    disaggregated: bool | None = None,
) -> dict[str, Any]:
    """The winning layout of `recommendation` (or the one `disaggregated` asks for) as one
    `hyperpod-dpd:endpoints` item."""
    model = resolve_model(scenario, base_dir)
    _check_emittable(scenario, model)
    if disaggregated is None and (scenario.serving or scenario.disaggregated):
        disaggregated = scenario.disaggregated  # the mode the scenario names
    option = chosen(recommendation, disaggregated)
    if option is None:
        raise ScenarioError("scenario.workload.slo: no layout meets it, so none is emitted")
    prediction: Prediction = option.prediction
    first = prediction.roles[0]
    threshold = recommendation.routing_threshold or 0
    name = _name(scenario, model)
    source = scenario.model
    published = PUBLISHED.get(source.name) if isinstance(source, ScenarioModel) else None
    model_name = published.split("/")[1] if published else name
    # maxModelLen: the next power of two that holds a request, within the model's context.
    workload = scenario.workload
    needed = max(workload.typical_input_tokens + workload.output_tokens, threshold + 1)
    length = 2 ** math.ceil(math.log2(needed))
    item: dict[str, Any] = {
        "name": name,
        "namespace": NAMESPACE,
        # What a first request needs: a SageMaker endpoint, and the chat path clients call.
        "endpointName": name,
        "invocationEndpoint": "v1/chat/completions",
        # The name the model is published under, which nextSteps downloads it by.
        "modelName": model_name,
        # Where the weights are: the stack's model bucket under this prefix; change it to
        # where yours are.
        "modelSource": {"s3": {"prefix": model_name}},
        "instanceType": scenario.instance_type,
        "architecture": _architecture(scenario, base_dir, model),
        "tensorParallelSize": first.tensor_parallel,
        "maxModelLen": min(length, model.context_length) if model.context_length else length,
        "gpuMemoryUtilization": scenario.utilization(GPU_MEMORY_UTILIZATION),
    }
    if first.expert_parallel > 1:
        item["workerArgs"] = [EXPERT_PARALLEL_FLAG]
    if prediction.disaggregated:
        prefill, decode = prediction.roles
        item |= {
            "prefill": _role(prefill),
            "decode": _role(decode),
            "routingThreshold": threshold,
            # prefixaware piles load on one prefiller when there are several.
            "routingStrategy": "roundrobin" if prefill.replicas > 1 else "prefixaware",
        }
    else:
        item["serving"] = _role(first)
    slo = workload.slo
    assert slo is not None  # recommend requires it
    item["workload"] = {
        "typicalInputTokens": workload.typical_input_tokens,
        "outputTokens": workload.output_tokens,
        "requestsPerSecond": workload.requests_per_second,
        "slo": {"ttftMs": slo.ttft_ms, "tpotMs": slo.tpot_ms, "percentile": slo.percentile},
    }
    return item


def nodes_needed(recommendation: Recommendation, disaggregated: bool | None = None) -> int:
    option = chosen(recommendation, disaggregated)
    return 0 if option is None else option.prediction.instances
