"""The forward model: a scenario's TTFT, TPOT and throughput.

Aggregated: each replica prefills and decodes. Prefill chunks ride in the decode steps
(chunked prefill), so a request's decode stretches by the share of time the replica spends
prefilling, and its prefill shares steps with the running decodes.
Disaggregated: prefill replicas queue prompts (M/D/1), the KV moves over EFA overlapped with
the prefill layer by layer, and decode replicas run batches by Little's law.
Load is open loop (`requestsPerSecond`) or closed loop (`concurrency`, each client sends its
next request when the last one ends); with neither, one request at a time.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from components.performance.efficiency import ENGINE_EFFICIENCY
from components.performance.hardware import machine
from components.performance.phases import (
    PREFILL_CHUNK_TOKENS,
    Deployment,
    Parallelism,
    decode_step_seconds,
    kv_bytes_per_rank,
    kv_transfer_seconds,
    prefill_seconds,
    weight_bytes_per_gpu,
)
from components.performance.queueing import (
    SATURATED_UTILIZATION,
    bisect_increasing,
    decode_batch,
    md1_wait,
)
from components.performance.scenario import (
    RoleLayout,
    Scenario,
    ScenarioError,
    precision_of,
    resolve_model,
    weight_bytes_per_parameter,
)
from components.sizing.kv import CUDA_OVERHEAD_BYTES

# The engines' default batch limit: vLLM's --max-num-seqs and SGLang's --max-running-requests
# on large GPUs, TensorRT-LLM's max_batch_size; the KV pool usually binds first.
DEFAULT_MAX_BATCH = 1024
# Without `concurrency` or `requestsPerSecond`: one request at a time.
SINGLE_CLIENT = 1
TENSOR_PARALLEL_CHOICES = (1, 2, 4, 8, 16, 32, 64)


@dataclass(frozen=True)
class Role:
    """One role's layout, resolved: its parallelism, replicas and the most requests a replica
    decodes at once."""

    name: str
    replicas: int
    parallelism: Parallelism
    max_batch: int

    @property
    def gpus(self) -> int:
        return self.replicas * self.parallelism.gpus


@dataclass(frozen=True)
class RolePrediction:
    name: str
    replicas: int
    tensor_parallel: int
    expert_parallel: int
    data_parallel_attention: int
    gpus: int
    # Requests a replica decodes at once, and the most it can.
    batch: float
    max_batch: int

    def to_json(self) -> dict[str, float | int]:
        document: dict[str, float | int] = {
            "replicas": self.replicas,
            "tensorParallel": self.tensor_parallel,
        }
        if self.expert_parallel > 1:
            document["expertParallel"] = self.expert_parallel
        if self.data_parallel_attention > 1:
            document["dataParallelAttention"] = self.data_parallel_attention
        document.update(gpus=self.gpus, batch=round(self.batch, 1), maxBatch=self.max_batch)
        return document


@dataclass(frozen=True)
class Prediction:
    disaggregated: bool
    ttft_ms: float
    tpot_ms: float
    output_tokens_per_second: float
    requests_per_second: float
    gpus: int
    instances: int
    # TTFT's parts: waiting for a prefill, the prefill itself, the KV transfer TTFT sees.
    queue_ms: float
    prefill_ms: float
    kv_transfer_ms: float
    # The load exceeds what the layout serves: the figures are those at its limit.
    saturated: bool
    max_requests_per_second: float
    roles: tuple[RolePrediction, ...]

    @property
    def e2e_latency_ms(self) -> float:
        return self.ttft_ms + self.tpot_ms * max(self._output_tokens - 1, 0)

    _output_tokens: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "mode": "disaggregated" if self.disaggregated else "aggregated",
            "ttftMs": round(self.ttft_ms, 1),
            "tpotMs": round(self.tpot_ms, 2),
            "outputTokensPerSecond": round(self.output_tokens_per_second, 1),
            "requestsPerSecond": round(self.requests_per_second, 3),
            "gpus": self.gpus,
            "instances": self.instances,
            "queueMs": round(self.queue_ms, 1),
            "prefillMs": round(self.prefill_ms, 1),
            "kvTransferMs": round(self.kv_transfer_ms, 1),
            "saturated": self.saturated,
            "maxRequestsPerSecond": round(self.max_requests_per_second, 3),
            **{role.name: role.to_json() for role in self.roles},
        }


def _fits(deployment: Deployment, layout: Parallelism, tokens: int) -> bool:
    needed = weight_bytes_per_gpu(deployment, layout) + kv_bytes_per_rank(
        deployment.model, layout.tensor_parallel, tokens
    )
    return needed <= deployment.machine.hbm_bytes_per_gpu - CUDA_OVERHEAD_BYTES


def _resolve_role(
    name: str, layout: RoleLayout, deployment: Deployment, tokens: int, utilization: float
) -> Role:
    key = f"scenario.{name}"
    gpus_per_node = deployment.machine.gpus_per_node
    dp = layout.data_parallel_attention
    if layout.tensor_parallel is None:
        fitting = [
            tp
            for tp in TENSOR_PARALLEL_CHOICES
            if _fits(deployment, Parallelism(tp, dp, tp * dp if deployment.moe else 1), tokens)
        ]
        if not fitting:
            raise ScenarioError(
                f"{key}.tensorParallel: no tensor-parallel size up to 64 holds the weights"
            )
        tp = fitting[0]
    else:
        tp = layout.tensor_parallel
    gpus = tp * dp
    ep = gpus if layout.expert_parallel == 0 else layout.expert_parallel
    if ep > gpus:
        raise ScenarioError(
            f"{key}.expertParallel: {ep} is more than the replica's {gpus} GPUs "
            "(tensorParallel x dataParallelAttention); allowed: 1 to "
            f"{gpus}"
        )
    parallelism = Parallelism(tp, dp, ep)
    weights = weight_bytes_per_gpu(deployment, parallelism)
    one_request = kv_bytes_per_rank(deployment.model, tp, tokens)
    hbm = deployment.machine.hbm_bytes_per_gpu
    if weights + one_request > hbm - CUDA_OVERHEAD_BYTES:
        raise ScenarioError(
            f"{key}.tensorParallel: {tp} x dataParallelAttention {dp} leaves each "
            f"{deployment.machine.gpu.name} {weights / 1e9:.1f} GB of weights and "
            f"{one_request / 1e9:.2f} GB of KV for one {tokens:,}-token request, more than its "
            f"{hbm / 1e9:.0f} GB less {CUDA_OVERHEAD_BYTES / 2**30:.0f} GiB of CUDA overhead; "
            "allowed: a larger tensorParallel or a lower precision"
        )
    pool = hbm * utilization - weights
    kv_batch = dp * max(1, math.floor(pool / one_request)) if pool > 0 else dp
    ceiling = layout.max_num_seqs or DEFAULT_MAX_BATCH
    if gpus > gpus_per_node and gpus % gpus_per_node:
        raise ScenarioError(
            f"{key}: a replica of {gpus} GPUs spans nodes of {gpus_per_node} unevenly; allowed: "
            f"tensorParallel x dataParallelAttention up to {gpus_per_node} or a multiple of it"
        )
    return Role(name, layout.replicas, parallelism, max(1, min(ceiling, kv_batch)))


@dataclass(frozen=True)
class _Point:
    ttft: float
    tpot: float
    queue: float
    prefill: float
    transfer: float
    batches: tuple[float, ...]


class _System:
    """A resolved scenario: its phases as functions of the arrival rate."""

    def __init__(
        self, deployment: Deployment, roles: tuple[Role, ...], input_tokens: int, output_tokens: int
    ):
        self.deployment = deployment
        self.roles = roles
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.context = input_tokens + output_tokens / 2
        self.first = roles[0]
        self.decoder = roles[-1]
        self.prefill_s = prefill_seconds(deployment, self.first.parallelism, input_tokens)
        self.disaggregated = len(roles) == 2
        if self.disaggregated:
            self.transfer_s = kv_transfer_seconds(
                deployment,
                self.first.parallelism,
                self.decoder.parallelism,
                input_tokens,
                self.prefill_s,
            )[1]
        else:
            self.transfer_s = 0.0

    def step(self, batch: float) -> float:
        return decode_step_seconds(
            deployment=self.deployment,
            layout=self.decoder.parallelism,
            batch=batch,
            context=self.context,
        )

    def capacity(self) -> float:
        """Requests per second the layout serves at most."""
        full = self.decoder.max_batch
        decode_seconds_per_request = self.output_tokens * self.step(full) / full
        if self.disaggregated:
            return min(
                self.first.replicas / self.prefill_s,
                self.decoder.replicas / decode_seconds_per_request,
            )
        return self.first.replicas / (self.prefill_s + decode_seconds_per_request)

    def at(self, rate: float, concurrency: int | None = None) -> _Point:
        prefill_rate = rate / self.first.replicas
        queue = md1_wait(prefill_rate, self.prefill_s)
        if concurrency is not None:
            # A client waits behind at most the other clients' prompts.
            queue = min(queue, max(concurrency / self.first.replicas - 1, 0) * self.prefill_s)
        if self.disaggregated:

            def token_seconds(batch: float) -> float:
                return self.step(batch)

            decode_rate = rate / self.decoder.replicas
            extra = self.transfer_s
        else:
            busy = min(prefill_rate * self.prefill_s, SATURATED_UTILIZATION)

            def token_seconds(batch: float) -> float:
                return self.step(batch) / (1 - busy)

            decode_rate = prefill_rate
            extra = 0.0
        batch = decode_batch(decode_rate, self.output_tokens, token_seconds, self.decoder.max_batch)
        if batch is None:
            batch = float(self.decoder.max_batch)
        if concurrency is not None:
            batch = min(batch, max(concurrency / self.decoder.replicas, 1.0))
        tpot = token_seconds(batch)
        step = self.step(batch)
        chunks = (
            1 if self.disaggregated else max(1, math.ceil(self.input_tokens / PREFILL_CHUNK_TOKENS))
        )
        ttft = queue + self.prefill_s + extra + chunks * step
        batches = (0.0, batch) if self.disaggregated else (batch,)
        return _Point(ttft, tpot, queue, self.prefill_s, extra, batches)

    def cycle(self, point: _Point) -> float:
        return point.ttft + max(self.output_tokens - 1, 0) * point.tpot


def _workload_tokens(scenario: Scenario) -> tuple[int, int]:
    workload = scenario.workload
    if workload.typical_input_tokens is None:
        raise ScenarioError(
            "scenario.workload.typicalInputTokens: required, the prompt length in tokens"
        )
    if workload.output_tokens is None:
        raise ScenarioError(
            "scenario.workload.outputTokens: required, the tokens generated per request"
        )
    return workload.typical_input_tokens, workload.output_tokens


def _deployment(scenario: Scenario, base_dir: Path | None) -> Deployment:
    model = resolve_model(scenario, base_dir)
    if scenario.kv_cache_dtype is not None:
        model = model.model_copy(update={"dtype": scenario.kv_cache_dtype})
    precision = precision_of(scenario, model)
    return Deployment.of(
        model,
        machine(scenario.instance_type),
        precision,
        ENGINE_EFFICIENCY[scenario.engine],
        weight_bytes_per_parameter(precision, model),
    )


def _layouts(scenario: Scenario) -> dict[str, RoleLayout]:
    if scenario.disaggregated:
        return {"prefill": scenario.prefill, "decode": scenario.decode}
    return {"serving": scenario.serving or RoleLayout()}


def system_of(scenario: Scenario, base_dir: Path | None = None) -> _System:
    input_tokens, output_tokens = _workload_tokens(scenario)
    deployment = _deployment(scenario, base_dir)
    roles = tuple(
        _resolve_role(
            name, layout, deployment, input_tokens + output_tokens, scenario.gpu_memory_utilization
        )
        for name, layout in _layouts(scenario).items()
    )
    return _System(deployment, roles, input_tokens, output_tokens)


def _solve(system: _System, scenario: Scenario) -> tuple[float, _Point, bool]:
    """The arrival rate the load comes to, the figures there, and whether it saturates."""
    workload = scenario.workload
    limit = system.capacity()
    edge = SATURATED_UTILIZATION * limit
    if workload.requests_per_second is not None:
        rate = workload.requests_per_second
        if rate <= edge:
            return rate, system.at(rate), False
        return limit, system.at(edge), True
    clients = workload.concurrency or SINGLE_CLIENT

    def in_flight(rate: float) -> float:
        return rate * system.cycle(system.at(rate, clients))

    if in_flight(edge) < clients:
        # More clients than the layout keeps busy: the rest wait (Little's law).
        point = system.at(edge, clients)
        wait = clients / limit - system.cycle(point)
        return (
            limit,
            _Point(
                point.ttft + wait,
                point.tpot,
                point.queue + wait,
                point.prefill,
                point.transfer,
                point.batches,
            ),
            True,
        )
    rate = bisect_increasing(in_flight, clients, 0.0, edge)
    return rate, system.at(rate, clients), False


def predict(scenario: Scenario, base_dir: Path | None = None) -> Prediction:
    """The scenario's predicted latency and throughput; ScenarioError names the key that stops
    it. `base_dir` resolves a relative model.configFile (the scenario file's directory)."""
    system = system_of(scenario, base_dir)
    rate, point, saturated = _solve(system, scenario)
    gpus = sum(role.gpus for role in system.roles)
    roles = tuple(
        RolePrediction(
            name=role.name,
            replicas=role.replicas,
            tensor_parallel=role.parallelism.tensor_parallel,
            expert_parallel=role.parallelism.expert_parallel,
            data_parallel_attention=role.parallelism.data_parallel_attention,
            gpus=role.gpus,
            batch=batch,
            max_batch=role.max_batch,
        )
        for role, batch in zip(system.roles, point.batches, strict=True)
    )
    return Prediction(
        disaggregated=system.disaggregated,
        ttft_ms=point.ttft * 1e3,
        tpot_ms=point.tpot * 1e3,
        output_tokens_per_second=rate * system.output_tokens,
        requests_per_second=rate,
        gpus=gpus,
        instances=math.ceil(gpus / system.deployment.machine.gpus_per_node),
        queue_ms=point.queue * 1e3,
        prefill_ms=point.prefill * 1e3,
        kv_transfer_ms=point.transfer * 1e3,
        saturated=saturated,
        max_requests_per_second=system.capacity(),
        roles=roles,
        _output_tokens=system.output_tokens,
    )
