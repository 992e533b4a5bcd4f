"""The time one replica takes for a prefill, a decode step, and a KV transfer.

A replica is `tensorParallel x dataParallelAttention` GPUs. Attention and the dense layers are
split over its tensor-parallel ranks and replicated over its data-parallel attention groups;
routed experts are spread over all its GPUs (expert parallel) or split like the rest.
Each phase takes the longer of its compute and its memory reads (a roofline), plus the
collectives it can't hide and a fixed cost per forward pass.
"""

import math
from dataclasses import dataclass

from components.model.architecture import ModelArchitecture
from components.sizing.kv import layer_bytes_per_token_per_rank
from planner.efficiency import (
    COLLECTIVE_BANDWIDTH,
    EFA_LATENCY_S,
    EXPERT_TOKENS_HALF,
    KV_TRANSFER_BANDWIDTH,
    LAYER_OVERHEAD_S,
    MOE_LAYER_OVERHEAD_S,
    NVLINK_LATENCY_S,
    PRECISION_COMPUTE,
    EngineEfficiency,
)
from planner.hardware import Machine
from planner.model_costs import (
    Flops,
    ModelCosts,
    decode_pairs,
    decode_token_flops,
    prefill_flops,
)

# Activations travel between ranks in BF16; MoE dispatch in FP8 and combine in BF16 (DeepEP,
# vLLM's all2all backends), 1.5 bytes per value on average.
ACTIVATION_BYTES = 2
ALL_TO_ALL_BYTES = 1.5
# Tensor-parallel all-reduces per layer: after attention and after the MLP.
ALL_REDUCES_PER_LAYER = 2
# MoE layers dispatch tokens to experts and combine them back.
ALL_TO_ALLS_PER_MOE_LAYER = 2
# The sampler's FP32 logits and probabilities, per vocabulary entry and request.
SAMPLER_BYTES_PER_LOGIT = 8
# Prefill runs long prompts in chunks of this many tokens (vLLM's --max-num-batched-tokens
# default for serving on large GPUs); each chunk is a forward pass with its fixed cost.
PREFILL_CHUNK_TOKENS = 8192


@dataclass(frozen=True)
class Deployment:
    """What every phase needs: the model's costs on this machine at this precision."""

    model: ModelArchitecture
    costs: ModelCosts
    machine: Machine
    precision: str
    efficiency: EngineEfficiency
    weight_bytes: float

    @property
    def peak_flops(self) -> float:
        return self.machine.gpu.peak_flops(self.precision)

    @property
    def moe(self) -> bool:
        return self.costs.moe_layers > 0


@dataclass(frozen=True)
class Parallelism:
    tensor_parallel: int
    data_parallel_attention: int = 1
    expert_parallel: int = 1

    @property
    def gpus(self) -> int:
        return self.tensor_parallel * self.data_parallel_attention


def weight_bytes_per_gpu(
    deployment: Deployment, layout: Parallelism, tokens: float = math.inf
) -> float:
    """The weights per GPU a pass of `tokens` reads: the dense ones, and the routed experts its
    tokens reach (all of them by default, which is what each GPU holds)."""
    routed = deployment.weight_bytes * deployment.costs.routed_fraction
    weights = (deployment.weight_bytes - routed) / layout.tensor_parallel
    return weights + routed * touched_expert_fraction(deployment.costs, tokens) / layout.gpus


def kv_bytes_per_rank(model: ModelArchitecture, tensor_parallel: int, context: float) -> float:
    """KV bytes one request with `context` tokens holds on one rank of its attention group:
    a token's for each that a new token attends to, over the layers."""
    return layer_bytes_per_token_per_rank(model, tensor_parallel) * decode_pairs(model, context)


def _collective_seconds(
    deployment: Deployment, ranks: int, bytes_out: float, count: float
) -> float:
    """`count` collectives among `ranks` GPUs, each sending `bytes_out` per GPU: over NVLink
    within a node, over EFA (the slower link bounds the ring) across nodes."""
    if ranks <= 1 or count <= 0:
        return 0.0
    machine = deployment.machine
    if ranks <= machine.gpus_per_node:
        bandwidth, latency = machine.gpu.nvlink_bytes_per_second, NVLINK_LATENCY_S
    else:
        bandwidth, latency = machine.efa_bytes_per_second_per_gpu, EFA_LATENCY_S
    return count * (latency + bytes_out / (bandwidth * COLLECTIVE_BANDWIDTH))


def _communication(deployment: Deployment, layout: Parallelism, tokens_per_rank: float) -> float:
    """One forward pass's collectives for `tokens_per_rank` tokens on each attention rank."""
    costs = deployment.costs
    tp = layout.tensor_parallel
    ring = 2 * (tp - 1) / tp if tp > 1 else 0.0
    message = tokens_per_rank * costs.hidden_size * ACTIVATION_BYTES
    all_reduce = _collective_seconds(
        deployment, tp, ring * message, ALL_REDUCES_PER_LAYER * costs.layers
    )
    # With data-parallel attention the MoE layers gather their tokens from the whole replica:
    # an all-to-all under expert parallelism, the same volume as gathers without.
    expert_ranks = max(layout.expert_parallel, layout.data_parallel_attention)
    if not deployment.moe or expert_ranks <= 1:
        return all_reduce
    return all_reduce + _all_to_all(deployment, expert_ranks, tokens_per_rank / tp)


def _all_to_all(deployment: Deployment, ranks: int, tokens: float) -> float:
    """Dispatch and combine of one forward pass's MoE layers, `tokens` tokens per rank, each to
    `experts_per_token` experts spread evenly over `ranks` GPUs. Copies for GPUs in the same
    node go over NVLink; those for other nodes over EFA, once per node a token reaches (DeepEP's
    node-deduplicated dispatch), while NVLink and EFA move in parallel."""
    costs, machine = deployment.costs, deployment.machine
    per_node = min(ranks, machine.gpus_per_node)
    nodes = math.ceil(ranks / per_node)
    token_bytes = costs.hidden_size * ALL_TO_ALL_BYTES
    local_copies = costs.experts_per_token * (per_node - 1) / ranks
    remote_copies = min(costs.experts_per_token * (ranks - per_node) / ranks, nodes - 1)
    nvlink_rate = machine.gpu.nvlink_bytes_per_second * COLLECTIVE_BANDWIDTH
    efa_rate = machine.efa_bytes_per_second_per_gpu * COLLECTIVE_BANDWIDTH
    nvlink = local_copies * tokens * token_bytes / nvlink_rate
    efa = remote_copies * tokens * token_bytes / efa_rate
    latency = EFA_LATENCY_S if nodes > 1 else NVLINK_LATENCY_S
    return ALL_TO_ALLS_PER_MOE_LAYER * costs.moe_layers * (latency + max(nvlink, efa))


def _compute_seconds(
    deployment: Deployment,
    flops: Flops,
    dense_ranks: float,
    expert_ranks: float,
    expert_tokens: float = math.inf,
) -> float:
    """Time for `flops`: the linear layers at the weights' GEMM peak over `dense_ranks` GPUs,
    attention at the BF16 peak (softmax(QK^T)V runs on 16-bit activations whatever the
    weights' precision: FlashAttention and FlashInfer in vLLM's default paths) and the routed
    experts' grouped GEMMs at their lower efficiency over `expert_ranks`, lower still when each
    expert gets few of the pass's tokens (`expert_tokens`)."""
    engine, gpu = deployment.efficiency, deployment.machine.gpu
    linear_rate = deployment.peak_flops * engine.gemm * PRECISION_COMPUTE[deployment.precision]
    attention_rate = gpu.bf16_flops * engine.gemm
    filled = expert_tokens / (expert_tokens + EXPERT_TOKENS_HALF)
    return (
        flops.linear / (dense_ranks * linear_rate)
        + flops.attention / (dense_ranks * attention_rate)
        + flops.experts / (expert_ranks * linear_rate * engine.moe_gemm * filled)
    )


def _layer_overhead(deployment: Deployment) -> float:
    """Seconds per forward pass spent launching and synchronising each layer's kernels."""
    costs = deployment.costs
    return costs.layers * LAYER_OVERHEAD_S + costs.moe_layers * MOE_LAYER_OVERHEAD_S


def first_token_floor(deployment: Deployment) -> float:
    """What a request's first token waits beyond the GPU time its prompt takes: the frontend,
    tokenizer, admission and streaming, and its prompt's forward pass launched without CUDA
    graphs (captured for decode batches only), per layer and per routed expert of each MoE
    layer. The launches overlap other requests' work on the GPU, so they lengthen this
    request's TTFT and not the steps of the others."""
    engine, costs = deployment.efficiency, deployment.costs
    experts = costs.moe_layers * costs.experts if costs.moe_layers else 0
    return (
        engine.request_s + costs.layers * engine.prefill_layer_s + experts * engine.prefill_expert_s
    )


def _expert_tokens(deployment: Deployment, tokens: float) -> float:
    """Tokens each routed expert gets from a pass of `tokens`."""
    costs = deployment.costs
    return tokens * costs.experts_per_token / costs.experts


def prefill_seconds(
    deployment: Deployment, layout: Parallelism, tokens: int, prompts: int = 1
) -> float:
    """Prefill of `prompts` prompts of `tokens` each, together, on an otherwise idle replica."""
    # A prompt's attention and dense layers run on its own data-parallel attention group;
    # the routed experts on every GPU of the replica.
    groups = min(prompts, layout.data_parallel_attention)
    tokens_per_group = prompts * tokens / groups
    passes = max(1, math.ceil(tokens_per_group / PREFILL_CHUNK_TOKENS))
    compute = _compute_seconds(
        deployment,
        prefill_flops(deployment.model, deployment.costs, tokens) * prompts,
        groups * layout.tensor_parallel,
        layout.gpus,
        _expert_tokens(deployment, prompts * tokens / passes),
    )
    # A prefill reads the weights no faster than a decode step, at the engine's share of HBM
    # bandwidth.
    bandwidth = deployment.machine.gpu.hbm_bytes_per_second * deployment.efficiency.decode_bandwidth
    reads = passes * (
        weight_bytes_per_gpu(deployment, layout, prompts * tokens / passes) / bandwidth
    )
    communication = _communication(deployment, layout, tokens_per_group)
    overhead = passes * (deployment.efficiency.step_overhead_s + _layer_overhead(deployment))
    return max(compute, reads) + communication + overhead


def touched_expert_fraction(costs: ModelCosts, tokens: float) -> float:
    """Expected share of a layer's routed experts that `tokens` tokens activate, with uniform
    routing: 1 - (1 - k/E)^tokens."""
    if costs.experts <= 1:
        return 1.0
    return 1 - (1 - costs.experts_per_token / costs.experts) ** max(tokens, 1.0)


def decode_step_seconds(
    deployment: Deployment,
    layout: Parallelism,
    batch: float,
    context: float,
    tokens_per_request: int = 1,
) -> float:
    """One decode step of `batch` requests (the replica's whole batch), `context` tokens each,
    each checking `tokens_per_request` tokens (more than one with speculative decoding)."""
    model, costs = deployment.model, deployment.costs
    batch = max(batch, 1.0)
    tokens = batch * tokens_per_request
    per_group = batch / layout.data_parallel_attention
    kv = max(per_group, 1.0) * kv_bytes_per_rank(model, layout.tensor_parallel, context)
    bandwidth = deployment.machine.gpu.hbm_bytes_per_second * deployment.efficiency.decode_bandwidth
    reads = (weight_bytes_per_gpu(deployment, layout, tokens) + kv) / bandwidth
    flops = decode_token_flops(model, costs, context) * tokens
    compute = _compute_seconds(deployment, flops, layout.gpus, layout.gpus)
    communication = _communication(deployment, layout, per_group * tokens_per_request)
    engine = deployment.efficiency
    # The CPU's work per request runs per data-parallel group, each its own scheduler.
    overhead = (
        engine.step_overhead_s + _layer_overhead(deployment) + per_group * engine.request_overhead_s
    )
    return max(reads, compute) + communication + overhead


def chunk_seconds(deployment: Deployment, layout: Parallelism, tokens: float, prompt: int) -> float:
    """What `tokens` of prompts of `prompt` tokens add to a decode step that carries them
    (chunked prefill): their share of the prompts' FLOPs and collectives. The step reads the
    weights once for both, but the prompts' compute does not hide under the decodes' reads: in
    the calibration's mixed batches (TensorRT-LLM's online table, MLPerf Server) decode slows
    by the prefill's whole compute time, as if the two shared the GPU in turns."""
    if tokens <= 0:
        return 0.0
    flops = prefill_flops(deployment.model, deployment.costs, prompt) * (tokens / prompt)
    compute = _compute_seconds(
        deployment, flops, layout.gpus, layout.gpus, _expert_tokens(deployment, tokens)
    )
    return compute + _communication(deployment, layout, tokens / layout.data_parallel_attention)


def kv_transfer_seconds(
    deployment: Deployment, prefill: Parallelism, decode: Parallelism, tokens: int
) -> float:
    """Moving one prompt's KV from a prefill replica to a decoder: every decode rank receives
    its share from as many prefill ranks as send in parallel, over NVLink when a prefill and a
    decode replica share a node, else over their EFA links.

    LMCache's PD backend, which HyperPod wires, sends it after the forward pass and blocks the
    prefiller meanwhile: vLLM calls the connector's `wait_for_save` at the end of each step
    (lmcache/integration/vllm/vllm_v1_adapter.py), which stores the step's tokens with the
    request's disagg spec; `PDBackend.batched_submit_put_task` (storage_backend/pd_backend.py)
    allocates on the decoder and calls `NixlChannel.batched_write`, which polls the NIXL
    transfer until it is done (transfer_channel/nixl_channel.py). Its layer-by-layer store
    (`save_kv_layer`) carries no disagg spec ("TODO: need to make layerwise storing compatible
    with disagg spec"). So the transfer adds to TTFT whole, and to the prefiller's busy time.
    """
    machine = deployment.machine
    moved = kv_bytes_per_rank(deployment.model, decode.tensor_parallel, tokens)
    moved *= decode.tensor_parallel
    links = min(prefill.tensor_parallel, decode.tensor_parallel)
    if prefill.gpus + decode.gpus <= machine.gpus_per_node:
        link = machine.gpu.nvlink_bytes_per_second * COLLECTIVE_BANDWIDTH
    else:
        link = machine.efa_bytes_per_second_per_gpu * KV_TRANSFER_BANDWIDTH
    return moved / (links * link)


def activation_bytes_per_gpu(deployment: Deployment, layout: Parallelism, max_seqs: int) -> float:
    """The activations vLLM reserves before it sizes the KV pool: it profiles a forward pass of
    its token budget (`--max-num-batched-tokens`) and a sampler run over `--max-num-seqs`
    requests, and subtracts their peak from `gpuMemoryUtilization` x HBM
    (vllm/v1/worker/gpu_worker.py, `determine_available_memory`).

    Per token of the pass: the residual stream and the layer's input (2 x hidden), QKV, and the
    MLP's gate, up and activated outputs (3 x its width per rank), in BF16; a MoE layer's
    grouped GEMMs hold each token's top-k expert outputs. The sampler holds FP32 logits and
    probabilities of the vocabulary per request."""
    costs, model = deployment.costs, deployment.model
    tp = layout.tensor_parallel
    hidden = costs.hidden_size
    width = (model.intermediate_size or 4 * hidden) / tp
    per_token = ACTIVATION_BYTES * (2 * hidden + 3 * width + 3 * hidden / tp)
    if deployment.moe:
        expert_width = (model.expert_intermediate_size or model.intermediate_size or hidden) / tp
        per_token += ACTIVATION_BYTES * costs.experts_per_token * 3 * expert_width
    sampled = max_seqs if deployment.efficiency.profiles_sampler else 0
    sampler = sampled * (model.vocab_size or 0) * SAMPLER_BYTES_PER_LOGIT
    return PREFILL_CHUNK_TOKENS * per_token / layout.data_parallel_attention + sampler
