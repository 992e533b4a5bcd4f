"""The forward model: a scenario's TTFT, TPOT and throughput, with their percentiles.

The scenario's roles are resolved against the model and GPUs (`roles`), their replicas become
functions of the load (`serving`), and the load gives the figures (`load`): open loop at
`requestsPerSecond`, closed loop at `concurrency`, one request at a time with neither.
"""

import math
from dataclasses import dataclass
from pathlib import Path

from planner.efficiency import ENGINE_EFFICIENCY, HANDOFFS
from planner.hardware import machine
from planner.layouts import check_workload, resolve_role
from planner.load import closed_loop, open_loop
from planner.model_costs import model_costs
from planner.phases import Deployment
from planner.scenario import (
    RoleLayout,
    Scenario,
    ScenarioError,
    precision_of,
    resolve_model,
    weight_bytes_per_parameter,
)
from planner.serving import Serving

# Without `concurrency` or `requestsPerSecond`: one request at a time.
SINGLE_CLIENT = 1
# The percentiles each prediction carries (vLLM's benchmarks print these).
PERCENTILES = (50, 90, 95, 99)


@dataclass(frozen=True)
class RolePrediction:
    name: str
    replicas: int
    tensor_parallel: int
    expert_parallel: int
    data_parallel_attention: int
    gpus: int
    # Requests a replica decodes at once, and the most it can; for a prefill role, the prompts
    # a pass takes at once, and the most it takes.
    batch: float
    max_batch: int
    # The engine's --max-num-seqs the prediction assumed, per data-parallel group.
    max_num_seqs: int

    def to_json(self) -> dict[str, float | int]:
        document: dict[str, float | int] = {
            "replicas": self.replicas,
            "tensorParallel": self.tensor_parallel,
        }
        if self.expert_parallel > 1:
            document["expertParallel"] = self.expert_parallel
        if self.data_parallel_attention > 1:
            document["dataParallelAttention"] = self.data_parallel_attention
        document.update(
            gpus=self.gpus,
            batch=round(self.batch, 1),
            maxBatch=self.max_batch,
            maxNumSeqs=self.max_num_seqs,
        )
        return document


def _ms(value: float, digits: int = 1) -> float | None:
    """A figure for JSON: None where there is none (past capacity)."""
    return round(value, digits) if math.isfinite(value) else None


@dataclass(frozen=True)
class Prediction:
    disaggregated: bool
    # Means. TTFT is infinite past an open loop's capacity: the queue grows without bound.
    ttft_ms: float
    tpot_ms: float
    output_tokens_per_second: float
    requests_per_second: float
    gpus: int
    instances: int
    # TTFT's parts: waiting, the prefill itself, the KV transfer and hop TTFT sees.
    queue_ms: float
    prefill_ms: float
    kv_transfer_ms: float
    # The load exceeds what the layout serves: the figures are those at its limit.
    saturated: bool
    max_requests_per_second: float
    roles: tuple[RolePrediction, ...]
    # TTFT and inter-token latency at each of PERCENTILES; none from predict(percentiles=False).
    ttft_percentiles_ms: tuple[float, ...] = ()
    itl_percentiles_ms: tuple[float, ...] = ()

    def ttft_at(self, percentile: int) -> float:
        return self.ttft_percentiles_ms[PERCENTILES.index(percentile)]

    def itl_at(self, percentile: int) -> float:
        return self.itl_percentiles_ms[PERCENTILES.index(percentile)]

    def to_json(self) -> dict[str, object]:
        """TTFT and TPOT's means and TTFT's percentiles, and the inter-token latency's
        percentiles (what an SLO's tpotMs is held against), each named for what it is."""
        percentiles = [f"p{p}" for p in PERCENTILES]
        itl = (_ms(v, 2) for v in self.itl_percentiles_ms)
        return {
            "mode": "disaggregated" if self.disaggregated else "aggregated",
            "ttftMs": {"mean": _ms(self.ttft_ms)}
            | dict(zip(percentiles, map(_ms, self.ttft_percentiles_ms), strict=False)),
            "tpotMs": {"mean": round(self.tpot_ms, 2)},
            "itlMs": dict(zip(percentiles, itl, strict=False)),
            "outputTokensPerSecond": round(self.output_tokens_per_second, 1),
            "requestsPerSecond": round(self.requests_per_second, 3),
            "gpus": self.gpus,
            "instances": self.instances,
            "queueMs": _ms(self.queue_ms),
            "prefillMs": round(self.prefill_ms, 1),
            "kvTransferMs": round(self.kv_transfer_ms, 1),
            "saturated": self.saturated,
            "maxRequestsPerSecond": round(self.max_requests_per_second, 3),
            **{role.name: role.to_json() for role in self.roles},
        }


def deployment_of(scenario: Scenario, base_dir: Path | None = None) -> Deployment:
    model = resolve_model(scenario, base_dir)
    precision = precision_of(scenario, model)
    # The KV cache's dtype: the scenario's; else FP8 where TensorRT-LLM runs an FP8 or FP4
    # checkpoint (NVIDIA's ModelOpt checkpoints set kv_cache_quant_algo FP8); else the model's
    # (vLLM and SGLang's `auto`).
    kv_dtype = scenario.kv_cache_dtype
    if kv_dtype is None and scenario.engine == "trtllm" and precision in ("fp8", "fp4"):
        kv_dtype = "fp8"
    if kv_dtype is not None:
        model = model.model_copy(update={"dtype": kv_dtype})
    return Deployment(
        model=model,
        costs=model_costs(model),
        machine=machine(scenario.instance_type),
        precision=precision,
        efficiency=ENGINE_EFFICIENCY[scenario.engine],
        weight_bytes=model.parameters * weight_bytes_per_parameter(precision, model),
    )


def serving_of(scenario: Scenario, base_dir: Path | None = None) -> Serving:
    workload = scenario.workload
    input_tokens, output_tokens = workload.typical_input_tokens, workload.output_tokens
    if input_tokens is None:
        raise ScenarioError(
            "scenario.workload.typicalInputTokens: required, the prompt length in tokens"
        )
    if output_tokens is None:
        raise ScenarioError(
            "scenario.workload.outputTokens: required, the tokens generated per request"
        )
    deployment = deployment_of(scenario, base_dir)
    check_workload(deployment, input_tokens, output_tokens)
    # Paged KV grows as a request decodes: it holds half its output on average, unless the
    # engine reserves the whole sequence when it admits the request.
    whole = deployment.efficiency.reserves_whole_sequence
    if scenario.disaggregated:
        # A measurement of one role alone gives the other as much: its own layout stands in.
        prefill = scenario.prefill or scenario.decode
        layouts = {"prefill": prefill, "decode": scenario.decode or prefill}
    else:
        layouts = {"serving": scenario.serving or RoleLayout()}
    roles = tuple(
        resolve_role(
            name,
            layout,
            deployment,
            input_tokens + output_tokens,
            scenario.utilization(),
            input_tokens + output_tokens / (1 if whole else 2),
        )
        for name, layout in layouts.items()
    )
    threshold = scenario.routing_threshold
    return Serving(
        deployment,
        roles,
        (input_tokens, output_tokens),
        scenario.speculative_decoding,
        blocking_transfer=scenario.kv_connector == "lmcache",
        handoff=HANDOFFS[scenario.kv_connector],
        spread=workload.length_spread,
        local_share=0.0 if threshold is None else workload.share_below(threshold),
    )


def predict(
    scenario: Scenario, base_dir: Path | None = None, *, percentiles: bool = True
) -> Prediction:
    """The scenario's predicted latency and throughput; ScenarioError names the key that stops
    it. `base_dir` resolves a relative model.configFile (the scenario file's directory).
    `percentiles=False` leaves out their cost, for the charts, which show the means alone."""
    serving, workload = serving_of(scenario, base_dir), scenario.workload
    if workload.requests_per_second is not None:
        point = open_loop(serving, workload.requests_per_second, workload.requests)
    else:
        clients = workload.concurrency or SINGLE_CLIENT
        point = closed_loop(serving, clients, workload.requests, workload.steady_state)
    gpus = sum(role.gpus for role in serving.roles)
    roles = tuple(
        RolePrediction(
            name=role.name,
            replicas=role.replicas,
            tensor_parallel=role.parallelism.tensor_parallel,
            expert_parallel=role.parallelism.expert_parallel,
            data_parallel_attention=role.parallelism.data_parallel_attention,
            gpus=role.gpus,
            batch=batch,
            max_batch=serving.most_prompts if role.name == "prefill" else role.max_batch,
            max_num_seqs=role.max_seqs,
        )
        for role, batch in zip(serving.roles, point.batches, strict=True)
    )
    return Prediction(
        disaggregated=serving.disaggregated,
        ttft_ms=point.ttft_mean * 1e3,
        tpot_ms=point.tpot * 1e3,
        output_tokens_per_second=point.rate * serving.output_tokens,
        requests_per_second=point.rate,
        gpus=gpus,
        instances=math.ceil(gpus / serving.deployment.machine.gpus_per_node),
        queue_ms=point.queue * 1e3,
        prefill_ms=point.prefill * 1e3,
        kv_transfer_ms=point.transfer * 1e3,
        saturated=point.saturated,
        max_requests_per_second=serving.capacity(),
        roles=roles,
        ttft_percentiles_ms=tuple(point.ttft_quantile(p) * 1e3 for p in PERCENTILES if percentiles),
        itl_percentiles_ms=tuple(point.itl_quantile(p) * 1e3 for p in PERCENTILES if percentiles),
    )
