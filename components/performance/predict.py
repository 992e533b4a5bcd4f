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

from components.performance.efficiency import DRAFT_ACCEPTANCE, ENGINE_EFFICIENCY
from components.performance.hardware import machine
from components.performance.phases import (
    PREFILL_CHUNK_TOKENS,
    Deployment,
    Parallelism,
    decode_step_seconds,
    kv_bytes_per_rank,
    kv_transfer_seconds,
    prefill_batch_limit,
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
# Fixed-point iterations for the prefill batch; it settles in a few.
PREFILL_BATCH_ITERATIONS = 12
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
    # Requests a replica decodes at once, and the most it can; for a prefill role, the prompts
    # a pass takes at once, and the most it takes.
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
    # The engine's limit holds per data-parallel attention group.
    ceiling = (layout.max_num_seqs or DEFAULT_MAX_BATCH) * dp
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
        self,
        deployment: Deployment,
        roles: tuple[Role, ...],
        workload: tuple[int, int],
        draft_tokens: int = 0,
    ):
        self.deployment = deployment
        self.roles = roles
        self.input_tokens, self.output_tokens = workload
        self.context = self.input_tokens + self.output_tokens / 2
        self.first = roles[0]
        self.decoder = roles[-1]
        self.disaggregated = len(roles) == 2
        # Speculative decoding checks 1 + drafts tokens a step and keeps the accepted ones.
        self.checked_tokens = 1 + draft_tokens
        self.accepted_tokens = sum(DRAFT_ACCEPTANCE**i for i in range(draft_tokens + 1))
        self.prefill_limit = prefill_batch_limit(self.first.parallelism, self.input_tokens)
        self.prefill_one = self.prefill(1)
        self.transfer_s = 0.0
        if self.disaggregated:
            self.transfer_s = kv_transfer_seconds(
                deployment,
                self.first.parallelism,
                self.decoder.parallelism,
                self.input_tokens,
                self.prefill_one,
            )[1]

    def prefill(self, prompts: float) -> float:
        return prefill_seconds(self.deployment, self.first.parallelism, self.input_tokens, prompts)

    def prefill_batch(self, rate: float) -> float:
        """Prompts a prefill pass takes at `rate` per replica: those that arrive while the
        previous pass runs (bulk service), one at least, the pass's limit at most."""
        prompts = 1.0
        for _ in range(PREFILL_BATCH_ITERATIONS):
            prompts = min(max(rate * self.prefill(prompts), 1.0), self.prefill_limit)
        return prompts

    def step(self, batch: float) -> float:
        return decode_step_seconds(
            self.deployment, self.decoder.parallelism, batch, self.context, self.checked_tokens
        )

    def token_seconds(self, batch: float) -> float:
        return self.step(batch) / self.accepted_tokens

    def capacity(self) -> float:
        """Requests per second the layout serves at most."""
        full = self.decoder.max_batch
        decode_seconds = self.output_tokens * self.token_seconds(full) / full
        prefill_seconds_each = self.prefill(self.prefill_limit) / self.prefill_limit
        if self.disaggregated:
            return min(
                self.first.replicas / prefill_seconds_each,
                self.decoder.replicas / decode_seconds,
            )
        return self.first.replicas / (prefill_seconds_each + decode_seconds)

    def at(self, rate: float, concurrency: int | None = None, full: bool = False) -> _Point:
        """The figures at `rate` requests per second; `full`: with every decoder at its
        largest batch, as when more clients wait than the layout serves."""
        prefill_rate = rate / self.first.replicas
        prompts = self.prefill_batch(prefill_rate)
        prefill = self.prefill(prompts)
        prefill_busy = min(prefill_rate * prefill / prompts, SATURATED_UTILIZATION)
        if self.disaggregated:
            decode_rate = rate / self.decoder.replicas
            stretch = 1.0
        else:
            decode_rate = prefill_rate
            # Prefill passes take turns with decode steps: decoding slows by their share.
            stretch = 1 / (1 - prefill_busy)

        def token_seconds(batch: float) -> float:
            return self.token_seconds(batch) * stretch

        batch = (
            None
            if full
            else decode_batch(
                decode_rate, self.output_tokens, token_seconds, self.decoder.max_batch
            )
        )
        if batch is None:
            batch = float(self.decoder.max_batch)
        if concurrency is not None:
            batch = min(batch, max(concurrency / self.decoder.replicas, 1.0))
        step = self.step(batch)
        # A request that finds other requests decoding waits for the step under way: half a
        # step on average.
        under_way = min(max(batch - 1, 0.0), 1.0) * step / 2
        # Prompts queue behind prompts; past the layout's capacity (`full`), behind whichever
        # phase bounds it.
        queue = md1_wait(SATURATED_UTILIZATION if full else prefill_busy, prefill)
        if concurrency is not None:
            # A client waits behind at most the other clients' prompts.
            queue = min(queue, max(concurrency / self.first.replicas - 1, 0) * prefill / prompts)
        if self.disaggregated:
            # The first token comes from the decoder's first step after the transfer.
            ttft = queue + prefill + self.transfer_s + under_way + step
        else:
            # Each chunk of an aggregated prompt rides in a step with the running decodes.
            chunks = math.ceil(self.input_tokens / PREFILL_CHUNK_TOKENS)
            ttft = under_way + queue + prefill + chunks * step
        batches = (prompts, batch) if self.disaggregated else (batch,)
        return _Point(ttft, token_seconds(batch), queue, prefill, self.transfer_s, batches)

    def cycle(self, point: _Point) -> float:
        return point.ttft + max(self.output_tokens - 1, 0) * point.tpot


def _draft_tokens(scenario: Scenario) -> int:
    """Drafted tokens per step from e.g. `mtp3`, `eagle3` or `3`; none when unset."""
    setting = scenario.speculative_decoding
    if not setting:
        return 0
    digits = "".join(ch for ch in setting if ch.isdigit())
    return int(digits) if digits else 1


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


def _kv_dtype(scenario: Scenario, precision: str) -> str | None:
    """The KV cache's dtype: the scenario's; else FP8 where TensorRT-LLM runs an FP8 or FP4
    checkpoint (NVIDIA's ModelOpt checkpoints set kv_cache_quant_algo FP8); else the model's
    (vLLM and SGLang's `auto`)."""
    if scenario.kv_cache_dtype is not None:
        return scenario.kv_cache_dtype
    if scenario.engine == "trtllm" and precision in ("fp8", "fp4"):
        return "fp8"
    return None


def _deployment(scenario: Scenario, base_dir: Path | None) -> Deployment:
    model = resolve_model(scenario, base_dir)
    precision = precision_of(scenario, model)
    kv_dtype = _kv_dtype(scenario, precision)
    if kv_dtype is not None:
        model = model.model_copy(update={"dtype": kv_dtype})
    return Deployment.of(
        model,
        machine(scenario.instance_type),
        precision,
        ENGINE_EFFICIENCY[scenario.engine],
        weight_bytes_per_parameter(precision, model),
    )


def _layouts(scenario: Scenario) -> dict[str, RoleLayout]:
    if scenario.disaggregated:
        # A measurement of one role alone gives the other as much: its own layout stands in.
        prefill = scenario.prefill or scenario.decode
        return {"prefill": prefill, "decode": scenario.decode or prefill}
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
    return _System(deployment, roles, (input_tokens, output_tokens), _draft_tokens(scenario))


def _solve(system: _System, scenario: Scenario) -> tuple[float, _Point, bool]:
    """The arrival rate the load comes to, the figures there, and whether it saturates."""
    workload = scenario.workload
    limit = system.capacity()
    edge = SATURATED_UTILIZATION * limit
    if workload.requests_per_second is not None:
        rate = workload.requests_per_second
        if rate <= edge:
            return rate, system.at(rate), False
        return limit, system.at(edge, full=True), True
    clients = workload.concurrency or SINGLE_CLIENT

    def in_flight(rate: float) -> float:
        return rate * system.cycle(system.at(rate, clients))

    if in_flight(edge) < clients:
        # More clients than the layout keeps busy: the rest wait (Little's law).
        point = system.at(edge, clients, full=True)
        wait = max(clients / limit - system.cycle(point), 0.0)
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
            max_batch=system.prefill_limit if role.name == "prefill" else role.max_batch,
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
    )
