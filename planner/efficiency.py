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
    # Whether a step carries prompts' chunks beside the running decodes (chunked prefill that
    # schedules running requests first, then prompts in the token budget left), or runs a
    # batch of prompts on its own while decodes wait.
    mixes_prefill: bool = True
    # Requests a replica runs at once by default, when the KV pool allows: vLLM's
    # --max-num-seqs on GPUs of 70 GiB and more (vllm/engine/arg_utils.py,
    # `_set_default_args`), TensorRT-LLM's max_batch_size (trtllm-serve's 2,048); SGLang sets
    # none and lets the KV pool bind.
    max_batch: int = 1024
    # vLLM profiles a sampler run over --max-num-seqs requests before it sizes the KV pool.
    profiles_sampler: bool = False
    # Grouped expert GEMMs run small per-expert batches and wait on routing: their share of
    # the dense GEMMs' efficiency (DESIGN.md: DeepSeek-class prefill reaches about a quarter of
    # peak). Fitted per engine, the three come out alike (docs/planning.md).
    moe_gemm: float = 0.6


# TensorRT-LLM's compiled kernels and C++ runtime lead; SGLang and vLLM trail it by about a
# tenth in GEMM efficiency and add Python scheduling per step.
# How each schedules prompts: vLLM's scheduler takes its running requests first, then waiting
# prompts in what is left of `max_num_batched_tokens` (vllm/v1/core/sched/scheduler.py,
# `Scheduler.schedule`); TensorRT-LLM's in-flight batching puts context chunks and generation
# in one iteration; SGLang runs a prefill batch whenever waiting requests fit and decodes
# otherwise (python/sglang/srt/managers/scheduler.py, `get_next_batch_to_run`), unless
# `--enable-mixed-chunk`, which is off by default.
ENGINE_EFFICIENCY: dict[Engine, EngineEfficiency] = {
    "vllm": EngineEfficiency(0.52, 0.70, 0.00088, 44e-6, profiles_sampler=True),
    "sglang": EngineEfficiency(0.52, 0.72, 0.00066, 33e-6, mixes_prefill=False, max_batch=65_536),
    "trtllm": EngineEfficiency(0.57, 0.75, 0.00044, 11e-6, max_batch=2048),
}

# Lower precisions double the peak but feed it less well (scaling, smaller tiles): the share
# of their own peak that GEMMs reach, relative to BF16's. INT8 (W8A8) scales like FP8; W4A16
# dequantizes its 4-bit weights in the GEMM's main loop at the BF16 peak, taken at FP8's
# factor: no public run in the calibration set measures either, so neither is fitted.
PRECISION_COMPUTE = {"bf16": 1.0, "fp8": 0.84, "fp4": 0.48, "int8": 0.84, "w4a16": 0.84}
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
# Per transfer: the hop from prefill to decoder (the router's proxy, LMCache's allocation
# request to the decoder and its answer, the proxy's notice that the KV arrived) and the
# scheduling of the decoder's first step.
KV_TRANSFER_LATENCY_S = 0.005
