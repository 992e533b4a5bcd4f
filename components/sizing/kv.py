"""The KV cache a DPD transfer moves, the PD buffer that receives it, and the decoder's HBM.
Figures are per tensor-parallel rank (one GPU): `PD_BUFFER_SIZE` is reserved on every decoder
GPU, and each rank receives its own share of the KV."""

import math
from dataclasses import dataclass

from components.cluster.instance_types import GPU_INSTANCE_TYPES, GpuInstanceType
from components.core.units import GIB
from components.endpoint.spec import EndpointSpec
from components.model.architecture import ModelArchitecture

# LMCache allocates and moves KV in chunks of this many tokens.
CHUNK_TOKENS = 256
# Decoder memory outside vLLM's share and the PD buffer (LMCache's and NIXL's CUDA contexts,
# EFA registration, CUDA graphs, fragmentation): an allowance, not a measurement, that keeps the
# source's advice consistent on p5 at 0.75 (16 GiB of buffer fits, 32 GiB needs a lower share).
CUDA_OVERHEAD_BYTES = 2 * GIB
BITS_PER_BYTE = 8


def chunked_tokens(tokens: int) -> int:
    """Tokens of buffer a transfer of `tokens` occupies: whole chunks, at least one."""
    return max(1, math.ceil(tokens / CHUNK_TOKENS)) * CHUNK_TOKENS


def layer_bytes_per_token_per_rank(model: ModelArchitecture, tensor_parallel_size: int) -> int:
    if model.attention == "MLA":
        # One latent per token, replicated on every rank rather than split.
        return (model.kv_lora_rank + model.qk_rope_head_dim) * model.kv_dtype_bytes
    # K and V per KV head. Ranks split the heads; beyond one head per rank they replicate
    # them, which is dividing by min(TP, kv_heads) (rounded up, for the busiest rank).
    heads_per_rank = math.ceil(model.kv_heads / tensor_parallel_size)
    return 2 * heads_per_rank * model.head_dim * model.kv_dtype_bytes


def kv_bytes_per_token_per_rank(model: ModelArchitecture, tensor_parallel_size: int) -> int:
    """KV bytes per token per rank over the layers that keep every token (sliding layers add a
    fixed cost: `transfer_bytes_per_rank`)."""
    return model.full_attention_layers * layer_bytes_per_token_per_rank(model, tensor_parallel_size)


def transfer_bytes_per_rank(
    model: ModelArchitecture, tensor_parallel_size: int, tokens: int
) -> int:
    """PD buffer bytes per rank that a transfer of `tokens` occupies, in whole chunks."""
    moved = chunked_tokens(tokens)
    sliding_tokens = min(moved, model.sliding_window or 0)
    per_layer = layer_bytes_per_token_per_rank(model, tensor_parallel_size)
    return (
        kv_bytes_per_token_per_rank(model, tensor_parallel_size) * moved
        + model.sliding_window_layers * per_layer * sliding_tokens
    )


def transfers_in_flight(pd_buffer_bytes: int, transfer_bytes: int) -> int:
    return pd_buffer_bytes // transfer_bytes


def transfer_seconds(bytes_per_rank: int, tensor_parallel_size: int, efa_gbps: int) -> float | None:
    """Time to move every rank's share over the instance's EFA, at line rate; None on a type
    without EFA, which serves aggregated only, so no KV ever moves between its pods."""
    if efa_gbps == 0:
        return None
    return bytes_per_rank * tensor_parallel_size * BITS_PER_BYTE / (efa_gbps * 1e9)


def gib_ceiling(size: float) -> int:
    return math.ceil(size / GIB) * GIB


@dataclass(frozen=True)
class HbmBudget:
    """One decoder GPU's memory: vLLM's share, the PD buffer beside it, and what is left."""

    per_gpu_bytes: int
    # The decoder's --gpu-memory-utilization: vLLM's share, for weights, activations and
    # its KV pool.
    gpu_memory_utilization: float
    weights_bytes_per_gpu: int
    pd_buffer_bytes: int
    overhead_bytes: int

    @property
    def utilization_bytes(self) -> int:
        return int(self.gpu_memory_utilization * self.per_gpu_bytes)

    @property
    def kv_pool_bytes_per_gpu(self) -> int:
        # An upper bound: activations come out of the same share.
        return self.utilization_bytes - self.weights_bytes_per_gpu

    @property
    def pd_buffer_room_bytes(self) -> int:
        """The largest PD buffer that fits beside vLLM's share and the overhead."""
        return self.per_gpu_bytes - self.utilization_bytes - self.overhead_bytes

    @property
    def headroom_bytes(self) -> int:
        return self.pd_buffer_room_bytes - self.pd_buffer_bytes


def decoder_hbm(
    model: ModelArchitecture,
    tensor_parallel_size: int,
    instance: GpuInstanceType,
    gpu_memory_utilization: float,
    pd_buffer_bytes: int,
) -> HbmBudget:
    return HbmBudget(
        per_gpu_bytes=instance.hbm_bytes_per_gpu,
        gpu_memory_utilization=gpu_memory_utilization,
        weights_bytes_per_gpu=round(model.weight_bytes / tensor_parallel_size),
        pd_buffer_bytes=pd_buffer_bytes,
        overhead_bytes=CUDA_OVERHEAD_BYTES,
    )


def recommended_pd_buffer(
    concurrent_transfers: int, typical_bytes: int, longest_bytes: int, room_bytes: int
) -> int | None:
    """The smallest whole-GiB buffer that holds `concurrent_transfers` typical transfers and,
    since a long prompt can arrive while the decoder is busy, one of the longest prompt beside
    them; None if that does not fit in `room_bytes`."""
    size = gib_ceiling(concurrent_transfers * typical_bytes + longest_bytes)
    return size if size <= room_bytes else None


@dataclass(frozen=True)
class Transfer:
    tokens: int
    bytes_per_rank: int
    in_flight: int
    seconds: float | None


@dataclass(frozen=True)
class EndpointSizing:
    name: str
    # Without pdSpec: no KV moves between pods, so no PD buffer and no transfers to size.
    aggregated: bool
    architecture: ModelArchitecture
    instance: GpuInstanceType
    tensor_parallel_size: int
    kv_bytes_per_token_per_rank: int
    pd_buffer_bytes: int
    # The decoder's --max-num-seqs, and the transfers it must take at once: that, or the
    # workload's concurrency if higher.
    decode_max_num_seqs: int
    concurrent_transfers: int
    routing_threshold: Transfer
    max_model_len: Transfer
    typical_input: Transfer | None
    hbm: HbmBudget
    recommended_pd_buffer_bytes: int | None

    @property
    def typical_transfer(self) -> Transfer:
        """What most DPD requests move: the workload's typical input, else the threshold."""
        return self.typical_input or self.routing_threshold


def size_endpoint(spec: EndpointSpec, model: ModelArchitecture) -> EndpointSizing:
    instance = GPU_INSTANCE_TYPES[spec.instance_type]
    tp = spec.tensor_parallel_size
    pd_buffer = 0 if spec.aggregated else int(spec.pd_buffer_size)

    def transfer(tokens: int) -> Transfer:
        size = transfer_bytes_per_rank(model, tp, tokens)
        return Transfer(
            tokens=tokens,
            bytes_per_rank=size,
            in_flight=transfers_in_flight(pd_buffer, size),
            seconds=transfer_seconds(size, tp, instance.efa_gbps),
        )

    workload = spec.workload
    typical_tokens = workload.typical_input_tokens if workload else None
    concurrency = workload.concurrency if workload else None
    routing_threshold = transfer(spec.routing_threshold)
    max_model_len = transfer(spec.max_model_len)
    typical_input = transfer(typical_tokens) if typical_tokens is not None else None
    concurrent = max(spec.decode_max_num_seqs, concurrency or 0)
    hbm = decoder_hbm(model, tp, instance, spec.decode_gpu_memory_utilization, pd_buffer)
    return EndpointSizing(
        name=spec.name,
        aggregated=spec.aggregated,
        architecture=model,
        instance=instance,
        tensor_parallel_size=tp,
        kv_bytes_per_token_per_rank=kv_bytes_per_token_per_rank(model, tp),
        pd_buffer_bytes=pd_buffer,
        decode_max_num_seqs=spec.decode_max_num_seqs,
        concurrent_transfers=concurrent,
        routing_threshold=routing_threshold,
        max_model_len=max_model_len,
        typical_input=typical_input,
        hbm=hbm,
        recommended_pd_buffer_bytes=recommended_pd_buffer(
            concurrent,
            (typical_input or routing_threshold).bytes_per_rank,
            max_model_len.bytes_per_rank,
            hbm.pd_buffer_room_bytes,
        ),
    )
