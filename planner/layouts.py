"""A scenario's roles resolved against its model and GPUs: parallelism the engine accepts,
memory that holds the weights, activations and a request's KV, and each role's batch limit.

A refusal names the key to change: the role's layout when another layout would serve, the
model or the workload when none would.
"""

import math
from dataclasses import dataclass

from planner.phases import (
    Deployment,
    Parallelism,
    activation_bytes_per_gpu,
    kv_bytes_per_rank,
    weight_bytes_per_gpu,
)
from planner.scenario import RoleLayout, ScenarioError

# Tensor parallelism within two nodes: vLLM's guidance is tensor-parallel inside a node and
# pipeline-parallel across nodes (docs, "Parallelism and scaling"); past two nodes every
# all-reduce of every layer crosses EFA, and no public run does it.
TENSOR_PARALLEL_CHOICES = (1, 2, 4, 8, 16)
MAX_TENSOR_PARALLEL = TENSOR_PARALLEL_CHOICES[-1]
# More GPUs than any scenario means: 2,048 eight-GPU nodes.
MAX_SCENARIO_GPUS = 16_384


@dataclass(frozen=True)
class Role:
    """One role's layout, resolved: its parallelism, replicas and the most requests a replica
    holds at once (the KV pool or the engine's limit, whichever binds)."""

    name: str
    replicas: int
    parallelism: Parallelism
    max_batch: int
    # The engine's --max-num-seqs per data-parallel group.
    max_seqs: int

    @property
    def gpus(self) -> int:
        return self.replicas * self.parallelism.gpus


def check_workload(deployment: Deployment, input_tokens: int, output_tokens: int) -> None:
    """A request longer than the model's context is refused on the workload's key."""
    context = deployment.model.context_length
    if context is not None and input_tokens + output_tokens > context:
        raise ScenarioError(
            f"scenario.workload.typicalInputTokens: {input_tokens:,} input and "
            f"{output_tokens:,} output tokens are more than the model's context of "
            f"{context:,} tokens, which vLLM refuses as a max_model_len; allowed: at most "
            f"{context:,} in all"
        )


def _parallelism_problem(deployment: Deployment, layout: Parallelism) -> str | None:
    """Why vLLM would refuse the tensor-parallel size, or None."""
    tp = layout.tensor_parallel
    heads = deployment.model.attention_heads
    if tp > MAX_TENSOR_PARALLEL:
        return (
            f"{tp} spans more than two nodes, each all-reduce of every layer over EFA; "
            f"allowed: {', '.join(map(str, TENSOR_PARALLEL_CHOICES))} (more replicas, or "
            "expert parallelism, scale further)"
        )
    if heads is not None and heads % tp:
        divisors = [t for t in TENSOR_PARALLEL_CHOICES if heads % t == 0]
        return (
            f"{tp} does not divide the model's {heads} attention heads, which vLLM refuses; "
            f"allowed: {', '.join(map(str, divisors))}"
        )
    machine = deployment.machine
    if layout.gpus > machine.gpus_per_node and machine.efa_bytes_per_second_per_gpu == 0:
        nodes = math.ceil(layout.gpus / machine.gpus_per_node)
        return (
            f"{tp} spreads a replica's {layout.gpus} GPUs over {nodes} {machine.instance_type} "
            "nodes, which have no EFA to carry its collectives; allowed: at most "
            f"{machine.gpus_per_node} GPUs a replica"
        )
    return None


def _checked(key: str, deployment: Deployment, layout: RoleLayout, tp: int) -> Parallelism:
    """`layout` at `tp` as the engine runs it, or refused naming the key."""
    dp = layout.data_parallel_attention
    if dp > 1 and not deployment.moe:
        raise ScenarioError(
            f"{key}.dataParallelAttention: {dp} on a dense model; data-parallel attention "
            "spreads the tokens of MoE layers over their experts, and a dense model has none: "
            "scale with replicas instead; allowed: 1"
        )
    problem = _parallelism_problem(deployment, Parallelism(tp, dp))
    if problem:
        raise ScenarioError(f"{key}.tensorParallel: {problem}")
    gpus = tp * dp
    ep = gpus if layout.expert_parallel == 0 else layout.expert_parallel
    experts = deployment.costs.experts
    if ep > gpus:
        raise ScenarioError(
            f"{key}.expertParallel: {ep} is more than the replica's {gpus} GPUs "
            f"(tensorParallel x dataParallelAttention); allowed: 1 to {gpus}"
        )
    if deployment.moe and gpus > experts and ep > 1:
        raise ScenarioError(
            f"{key}.dataParallelAttention: {gpus} GPUs share the model's {experts} routed "
            f"experts, and some would hold none; allowed: at most {experts} GPUs a replica"
        )
    if layout.replicas * gpus > MAX_SCENARIO_GPUS:
        raise ScenarioError(
            f"{key}.replicas: {layout.replicas:,} x {gpus} GPUs is more than "
            f"{MAX_SCENARIO_GPUS:,} GPUs (2,048 nodes); allowed: at most "
            f"{MAX_SCENARIO_GPUS // gpus:,} replicas"
        )
    return Parallelism(tp, dp, ep)


def _needs(
    deployment: Deployment, layout: Parallelism, tokens: int, max_seqs: int
) -> tuple[float, float, float]:
    """(weights, activations, one request's KV) per GPU."""
    return (
        weight_bytes_per_gpu(deployment, layout),
        activation_bytes_per_gpu(deployment, layout, max_seqs),
        kv_bytes_per_rank(deployment.model, layout.tensor_parallel, tokens),
    )


def _smallest_tensor_parallel(
    key: str, deployment: Deployment, dp: int, tokens: int, utilization: float, max_seqs: int
) -> int:
    budget = deployment.machine.hbm_bytes_per_gpu * utilization
    for tp in TENSOR_PARALLEL_CHOICES:
        layout = Parallelism(tp, dp, tp * dp if deployment.moe else 1)
        needs = sum(_needs(deployment, layout, tokens, max_seqs))
        if _parallelism_problem(deployment, layout) is None and needs <= budget:
            return tp
    _check_weights_fit(deployment, dp, utilization)
    raise ScenarioError(
        f"{key}.tensorParallel: no tensor-parallel size up to {MAX_TENSOR_PARALLEL} that "
        f"divides the model's heads holds its weights and one request's KV at "
        f"gpuMemoryUtilization {utilization:g}"
    )


def _check_weights_fit(deployment: Deployment, dp: int, utilization: float) -> None:
    """Refused on the model when even the largest tensor-parallel size leaves too many
    weights on each GPU."""
    largest = Parallelism(MAX_TENSOR_PARALLEL, dp, MAX_TENSOR_PARALLEL * dp)
    weights = weight_bytes_per_gpu(deployment, largest)
    if weights > deployment.machine.hbm_bytes_per_gpu * utilization:
        raise ScenarioError(
            f"scenario.model.parameters: {deployment.model.parameters:.3g} parameters in "
            f"{deployment.precision} leave {weights / 1e9:,.0f} GB of weights on each "
            f"{deployment.machine.gpu.name} even over {largest.gpus} GPUs, more than "
            f"gpuMemoryUtilization {utilization:g} of its HBM; allowed: a model that fits, or a "
            "lower precision"
        )


def resolve_role(
    name: str,
    layout: RoleLayout,
    deployment: Deployment,
    tokens: int,
    utilization: float,
    context: float | None = None,
) -> Role:
    """`layout` checked and sized for requests of `tokens` (input and output), that hold
    `context` tokens of KV on average while they run (paged KV grows as they decode)."""
    key = f"scenario.{name}"
    dp = layout.data_parallel_attention
    max_seqs = layout.max_num_seqs or deployment.efficiency.max_batch
    tp = layout.tensor_parallel or _smallest_tensor_parallel(
        key, deployment, dp, tokens, utilization, max_seqs
    )
    parallelism = _checked(key, deployment, layout, tp)
    weights, activations, one_request = _needs(deployment, parallelism, tokens, max_seqs)
    budget = deployment.machine.hbm_bytes_per_gpu * utilization
    gpu = deployment.machine.gpu.name
    if weights + activations > budget:
        _check_weights_fit(deployment, dp, utilization)
        raise ScenarioError(
            f"{key}.tensorParallel: {tp} x dataParallelAttention {dp} leaves each {gpu} "
            f"{weights / 1e9:.1f} GB of weights and {activations / 1e9:.1f} GB of "
            f"activations, more than gpuMemoryUtilization {utilization:g} of its "
            f"{deployment.machine.hbm_bytes_per_gpu / 1e9:.0f} GB; allowed: a larger "
            "tensorParallel or a lower precision"
        )
    pool = budget - weights - activations
    if one_request > pool:
        raise ScenarioError(
            f"scenario.workload.typicalInputTokens: one request of {tokens:,} tokens needs "
            f"{one_request / 1e9:.2f} GB of KV on each {gpu}, and {name}'s layout (tensor "
            f"parallel {tp}) leaves {pool / 1e9:.2f} GB beside its weights and activations; "
            "allowed: shorter requests, or a larger tensorParallel"
        )
    average = kv_bytes_per_rank(deployment.model, tp, context or tokens)
    kv_batch = dp * math.floor(pool / average)
    # The engine's limit holds per data-parallel attention group.
    return Role(name, layout.replicas, parallelism, max(1, min(max_seqs * dp, kv_batch)), max_seqs)
