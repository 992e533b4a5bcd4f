"""The fractions of the hardware's peaks that each engine reaches, per phase.

Few and physical, so that they carry to hardware and models they were not fitted on:
- GEMMs: the share of the tensor-core peak that a prefill, or a decode batch large enough
  to be compute-bound, sustains (model FLOPs utilization): the same matrix multiplies;
- decode: the share of HBM bandwidth a decode step's reads (weights, KV) reach;
- a fixed cost per forward pass (scheduling, kernel launches between CUDA graphs, sampling),
  and, for passes that carry prompts, the launches of an un-graphed forward pass per layer;
- a fixed cost per request outside the GPU (HTTP, tokenizer, admission, streaming);
- the KV hand-off of disaggregated serving, as measured end to end.
Starting values: DESIGN.md "Performance facts" (dense prefill 40-50% of FP8 peak, decode
55-60% of HBM bandwidth, DeepSeek-class MoE prefill about a quarter). Their fit on public
measured runs, and the runs held apart from it: docs/contributing/calibration.md and
`scripts/calibration.py`.
"""

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
    # peak), reached once each expert has many tokens (EXPERT_TOKENS_HALF).
    moe_gemm: float = 0.485
    # A request's time outside the forward passes: the HTTP frontend, the tokenizer, the
    # scheduler's admission and the first token's detokenizing and streaming.
    request_s: float = 0.003
    # A forward pass that carries prompt tokens runs without CUDA graphs (captured for decode
    # batches only): its kernels' launches per layer, and in a MoE layer the work per routed
    # expert (its slice of the grouped GEMMs' scheduling and setup), whatever the tokens.
    # Single-request runs show them as TTFT's floor: SGLang's cookbook runs on 8 B200s wait
    # about 5 to 8 us per expert of each MoE layer beyond their compute, alike for DeepSeek-R1
    # (58 x 256), MiniMax-M2.5 (62 x 256), Qwen3-235B (94 x 128) and GPT-OSS-120B (36 x 128).
    prefill_layer_s: float = 0.0002
    prefill_expert_s: float = 4e-6
    # TensorRT-LLM's capacity scheduler (GUARANTEED_NO_EVICT, its default) admits a request
    # only when the KV of its whole sequence, prompt and every output token, is free; vLLM and
    # SGLang page the KV and admit on what the prompt needs.
    reserves_whole_sequence: bool = False


# TensorRT-LLM's compiled kernels and C++ runtime lead; SGLang and vLLM trail it by about a
# tenth in GEMM efficiency and add Python scheduling per step.
# How each schedules prompts: vLLM's scheduler takes its running requests first, then waiting
# prompts in what is left of `max_num_batched_tokens` (vllm/v1/core/sched/scheduler.py,
# `Scheduler.schedule`); TensorRT-LLM's in-flight batching puts context chunks and generation
# in one iteration; SGLang runs a prefill batch whenever waiting requests fit and decodes
# otherwise (python/sglang/srt/managers/scheduler.py, `get_next_batch_to_run`), unless
# `--enable-mixed-chunk`, which is off by default.
# The first token's floor (request_s, prefill_layer_s, prefill_expert_s) is fitted on
# single-client and light-load runs: SGLang's cookbook (8 B200s, 8 H100s), Vultr's vLLM
# MiniMax-M2.5 (4 B200s) and TensorRT-LLM's online table (Llama 3.1 8B and 70B on H100).
ENGINE_EFFICIENCY: dict[Engine, EngineEfficiency] = {
    "vllm": EngineEfficiency(
        0.57, 0.63, 0.00101, 50e-6, profiles_sampler=True,
        request_s=0.0025, prefill_layer_s=0.00015, prefill_expert_s=2.6e-6,
    ),
    "sglang": EngineEfficiency(
        0.57, 0.65, 0.00075, 38e-6, mixes_prefill=False, max_batch=65_536,
        request_s=0.0029, prefill_layer_s=0.00018, prefill_expert_s=4.8e-6,
    ),
    "trtllm": EngineEfficiency(
        0.63, 0.675, 0.0005, 12e-6, max_batch=2048, reserves_whole_sequence=True,
        request_s=0.0017, prefill_layer_s=0.00005, prefill_expert_s=2.6e-6,
    ),
}  # fmt: skip

# Lower precisions double the peak but feed it less well (scaling, smaller tiles): the share
# of their own peak that GEMMs reach, relative to BF16's. INT8 (W8A8) scales like FP8; W4A16
# dequantizes its 4-bit weights in the GEMM's main loop at the BF16 peak, taken at FP8's
# factor: no public run in the calibration set measures either, so neither is fitted.
PRECISION_COMPUTE = {"bf16": 1.0, "fp8": 0.8, "fp4": 0.5, "int8": 0.8, "w4a16": 0.8}
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
# Expert GEMMs reach half their efficiency at this many tokens per expert in a pass: a
# grouped GEMM pads each expert's rows to its tile (64 to 128 rows), so fewer tokens compute
# the tile's work all the same. A 1,000-token prompt gives each of DeepSeek-R1's 256 experts
# about 31 (8 a token).
EXPERT_TOKENS_HALF = 64
# The KV transfer across nodes: NIXL over libfabric moved about 9.6 GB/s per p5 worker with 4
# EFA interfaces (4 x 100 Gbps = 50 GB/s): about a fifth of line rate. Source:
# ai-dynamo/dynamo docs/kubernetes/disagg-communication-guide.md (DESIGN.md). Within a node
# the KV moves GPU to GPU over NVLink (NIXL's and LMCache's CUDA IPC path), at the share of
# NVLink a collective reaches.
KV_TRANSFER_BANDWIDTH = 0.19


@dataclass(frozen=True)
class Handoff:
    """What the disaggregated hand-off costs beyond the KV's bytes, measured end to end: a
    fixed part (the router's dispatch to the prefiller and then the decoder, the allocation
    handshake) and decode steps the request waits on the decoder before its first token."""

    fixed_s: float
    decode_steps: float


# LMCache's PD backend (HyperPod's) pushes the KV before the prefiller answers, so the decoder
# has it when the request arrives: it waits for the step under way (half a step on average),
# then computes the prompt's last token in its first step (a KV connector leaves that token to
# the decoder: vLLM's scheduler counts the external hit as prompt - 1 tokens). The pull
# connectors (vLLM's NixlConnector, Dynamo, SGLang's and TensorRT-LLM's transfer engines) start
# the read at the decoder's next schedule and see it done a step later: vLLM's pull path
# measured about 197 ms p50 from the prefill's first token to the client's, of which the KV
# transfer took about 29 ms, the rest step boundaries, the recomputed token (about 58 ms with
# its alignment) and serial dispatch (vllm-project/vllm pull request 51919, 3P1D): about
# three and a half steps. The fixed part is the proxy's two HTTP hops and the handshake.
HANDOFFS = {"lmcache": Handoff(0.010, 1.5), "nixl": Handoff(0.020, 3.5)}
