"""The fractions of the hardware's peaks that each engine reaches, per phase.

Few and physical, so that they carry to hardware and models they were not fitted on:
- GEMMs: the share of the tensor-core peak that a prefill, or a decode batch large enough
  to be compute-bound, sustains (model FLOPs utilization): the same matrix multiplies;
- decode: the share of HBM bandwidth a decode step's reads (weights, KV) reach;
- a fixed cost per forward pass (scheduling, kernel launches between CUDA graphs, sampling);
- the KV transfer's share of EFA line rate.
Starting values: DESIGN.md "Performance facts" (dense prefill 40-50% of FP8 peak, decode
55-60% of HBM bandwidth, DeepSeek-class MoE prefill about a quarter). Their fit on public
measurements is in docs/planning.md and `scripts/calibration_table.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Engine = Literal["vllm", "sglang", "trtllm"]


@dataclass(frozen=True)
class EngineEfficiency:
    # Share of the BF16 tensor-core peak dense GEMMs sustain, in prefill and in large decode
    # batches alike.
    gemm: float
    # Share of HBM bandwidth a decode step's weight and KV reads reach.
    decode_bandwidth: float
    # Seconds per forward pass outside the kernels' own time (scheduling, launching), and per
    # running request in it (its scheduling, sampling and output processing on the CPU).
    step_overhead_s: float
    request_overhead_s: float


# TensorRT-LLM's compiled kernels and C++ runtime lead; SGLang and vLLM trail it by about a
# tenth in GEMM efficiency and add Python scheduling per step.
ENGINE_EFFICIENCY: dict[Engine, EngineEfficiency] = {
    "vllm": EngineEfficiency(0.55, 0.70, 0.0008, 40e-6),
    "sglang": EngineEfficiency(0.55, 0.72, 0.0006, 30e-6),
    "trtllm": EngineEfficiency(0.60, 0.75, 0.0004, 10e-6),
}

# Lower precisions double the peak but feed it less well (scaling, smaller tiles): the share
# of their own peak that GEMMs reach, relative to BF16's.
PRECISION_COMPUTE = {"bf16": 1.0, "fp8": 0.8, "fp4": 0.6}
# Grouped expert GEMMs run small per-expert batches and wait on routing: their share of the
# dense GEMMs' efficiency (DESIGN.md: DeepSeek-class prefill reaches about a quarter of peak).
MOE_COMPUTE = 0.55
# Kernel launches and synchronisation per layer and forward pass, beyond the kernels' own
# time, even under CUDA graphs: about 20 us per layer; MoE layers add routing, permutation and
# grouped-GEMM launches. Fitted on batch-1 decode (Llama 3.1 8B and 70B, DeepSeek-R1 on 8
# GPUs) in the calibration table.
LAYER_OVERHEAD_S = 20e-6
MOE_LAYER_OVERHEAD_S = 50e-6
# Speculative decoding: the chance each drafted token is accepted, for MTP and EAGLE heads.
# DeepSeek-V3's report gives 85-90% for its first MTP token; later drafts accept less.
DRAFT_ACCEPTANCE = 0.7
# Collectives: the share of NVLink or EFA bandwidth an all-reduce or all-to-all reaches, and
# the fixed latency of one (NCCL's small-message all-reduce within a node is ~10 us).
COLLECTIVE_BANDWIDTH = 0.7
NVLINK_LATENCY_S = 10e-6
EFA_LATENCY_S = 40e-6
# The KV transfer: NIXL over libfabric moved about 9.6 GB/s per p5 worker with 4 EFA
# interfaces (4 x 100 Gbps = 50 GB/s): about a fifth of line rate. Source:
# ai-dynamo/dynamo docs/kubernetes/disagg-communication-guide.md (DESIGN.md).
KV_TRANSFER_BANDWIDTH = 0.19
# Per transfer: the handshake, the decoder's allocation and the scheduling of its first step.
KV_TRANSFER_LATENCY_S = 0.005
