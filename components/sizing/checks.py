"""Rules over an endpoint's sizing: what the decoder's GPUs and PD buffer hold, and whether the
model and its traffic are the kind DPD pays off for. An aggregated endpoint has no PD buffer
and asks nothing of DPD: only what its GPUs hold and the model's context apply to it.
"""

import math
from dataclasses import dataclass

from components.cluster.instance_types import DPD_INSTANCE_TYPES, GPU_INSTANCE_TYPES
from components.core.findings import Finding, error, info, warning
from components.core.units import format_bytes
from components.endpoint.flags import canonical_flag, flag_names
from components.endpoint.spec import EndpointSpec
from components.model.architecture import ModelArchitecture
from components.sizing.kv import CHUNK_TOKENS, EndpointSizing, gib_ceiling, size_endpoint
from components.sizing.replicas import EndpointReplicas, endpoint_replicas

# The source's "when DPD helps": a dense model of 70B parameters or more, inputs over 4,000
# tokens, more than 2 requests per second sustained, outputs over 256 tokens.
DPD_MIN_PARAMETERS = 70e9
DPD_MIN_INPUT_TOKENS = 4_000
DPD_MIN_REQUESTS_PER_SECOND = 2
DPD_MIN_OUTPUT_TOKENS = 256
# Validated on ml.p5.48xlarge with Llama 3.3 70B.
VALIDATED_CONCURRENCY = 64


@dataclass(frozen=True)
class SizingReport:
    name: str
    # None: a colocated endpoint whose architecture is unknown, which deploys unsized.
    sizing: EndpointSizing | None
    findings: list[Finding]
    replicas: EndpointReplicas


def _utilization_key(spec: EndpointSpec) -> str:
    own = spec.decoder.gpu_memory_utilization is not None
    role = "serving" if spec.aggregated else "decode"
    return f"{role}.gpuMemoryUtilization" if own else "gpuMemoryUtilization"


def _floor_2(value: float) -> float:
    return math.floor(value * 100) / 100


def _hbm(spec: EndpointSpec, sizing: EndpointSizing) -> list[Finding]:
    found = []
    hbm, instance = sizing.hbm, sizing.instance
    utilization = hbm.gpu_memory_utilization
    gpu = f"{format_bytes(hbm.per_gpu_bytes)} {instance.gpu} of {instance.name}"
    if hbm.headroom_bytes < 0 and spec.aggregated:
        fitting = _floor_2((hbm.per_gpu_bytes - hbm.overhead_bytes) / hbm.per_gpu_bytes)
        found.append(
            error(
                "hbm-overcommitted",
                _utilization_key(spec),
                f"{utilization} gives vLLM {format_bytes(hbm.utilization_bytes)} of the {gpu}, "
                f"leaving less than the {format_bytes(hbm.overhead_bytes)} of CUDA overhead; "
                f"allowed: {fitting} or less",
            )
        )
    elif hbm.headroom_bytes < 0:
        fitting_utilization = _floor_2(
            (hbm.per_gpu_bytes - hbm.pd_buffer_bytes - hbm.overhead_bytes) / hbm.per_gpu_bytes
        )
        allowed = []
        if hbm.pd_buffer_room_bytes > 0:
            allowed.append(f"pdBufferSize up to {format_bytes(hbm.pd_buffer_room_bytes)}")
        if fitting_utilization > 0:
            allowed.append(f"{_utilization_key(spec)} {fitting_utilization} or less")
        found.append(
            error(
                "hbm-overcommitted",
                "pdBufferSize",
                f"{format_bytes(hbm.pd_buffer_bytes)} does not fit on the decoder: with "
                f"--gpu-memory-utilization {utilization} ({format_bytes(hbm.utilization_bytes)})"
                f" and {format_bytes(hbm.overhead_bytes)} of CUDA overhead it needs "
                f"{format_bytes(-hbm.headroom_bytes)} more than the {gpu}; allowed: "
                f"{' or '.join(allowed) or 'a smaller pdBufferSize with a lower utilization'}",
            )
        )
    if hbm.kv_pool_bytes_per_gpu <= 0:
        found.append(_weights_beyond_utilization(spec, sizing))
    return found


def _weights_beyond_utilization(spec: EndpointSpec, sizing: EndpointSizing) -> Finding:
    hbm, instance = sizing.hbm, sizing.instance
    tp = sizing.tensor_parallel_size
    weights = format_bytes(hbm.weights_bytes_per_gpu)
    gpu = f"{format_bytes(hbm.per_gpu_bytes)} {instance.gpu} of {instance.name}"
    larger_tp = ["a larger tensorParallelSize"] if tp < instance.gpus else []
    # The most vLLM can have: the GPU less the PD buffer and the CUDA overhead beside it.
    room = hbm.per_gpu_bytes - hbm.pd_buffer_bytes - hbm.overhead_bytes
    if hbm.weights_bytes_per_gpu < room:
        needed = math.ceil(100 * hbm.weights_bytes_per_gpu / hbm.per_gpu_bytes) / 100
        return error(
            "weights-exceed-utilization",
            _utilization_key(spec),
            f"{hbm.gpu_memory_utilization} gives vLLM {format_bytes(hbm.utilization_bytes)} of "
            f"the {gpu}, but the weights take {weights} per GPU at tensorParallelSize {tp}, "
            f"leaving no KV cache; allowed: {' or '.join([f'above {needed}', *larger_tp])}",
        )
    roomier = [
        name
        for name, other in (GPU_INSTANCE_TYPES if spec.aggregated else DPD_INSTANCE_TYPES).items()
        if other.hbm_bytes_per_gpu - hbm.pd_buffer_bytes - hbm.overhead_bytes
        > hbm.weights_bytes_per_gpu
    ]
    allowed = list(larger_tp)
    if roomier:
        allowed.append(f"an instanceType with more memory per GPU ({', '.join(roomier)})")
    buffer_room = hbm.per_gpu_bytes - hbm.overhead_bytes - hbm.weights_bytes_per_gpu
    if not spec.aggregated and buffer_room > 0:
        allowed.append(f"a pdBufferSize under {format_bytes(buffer_room)}")
    beside = (
        " beside"
        if spec.aggregated
        else f" beside the {format_bytes(hbm.pd_buffer_bytes)} pdBufferSize and"
    )

    allowed.append("quantized weights (a lower architecture.weightBytesPerParameter)")
    # No utilization would do, so the line names the instance type rather than the utilization.
    return error(
        "weights-exceed-utilization",
        "instanceType",
        f"{instance.name} cannot hold the model's weights at "
        f"tensorParallelSize {tp}, at any gpuMemoryUtilization: they take {weights} per GPU, "
        f"and each {format_bytes(hbm.per_gpu_bytes)} {instance.gpu} has "
        f"{format_bytes(max(room, 0))} for vLLM{beside} "
        f"{format_bytes(hbm.overhead_bytes)} of CUDA overhead; allowed: "
        f"{', or '.join(allowed)}",
    )


def _pd_buffer(spec: EndpointSpec, sizing: EndpointSizing) -> list[Finding]:
    found = []
    buffer = format_bytes(sizing.pd_buffer_bytes)
    longest = sizing.max_model_len
    if longest.in_flight == 0:
        found.append(
            error(
                "max-model-len-exceeds-pd-buffer",
                "pdBufferSize",
                f"{buffer} cannot hold one --max-model-len prompt: {longest.tokens:,} tokens "
                f"take {format_bytes(longest.bytes_per_rank)} per rank in {CHUNK_TOKENS}-token "
                "chunks, so such a request could never transfer; allowed: at least "
                f"{format_bytes(gib_ceiling(longest.bytes_per_rank))}, or a lower maxModelLen",
            )
        )
    typical = sizing.typical_transfer
    if typical.in_flight < sizing.decode_max_num_seqs:
        prompts = "typical" if sizing.typical_input else "routingThreshold-length"
        needed = gib_ceiling(sizing.decode_max_num_seqs * typical.bytes_per_rank)
        found.append(
            warning(
                "pd-buffer-below-max-num-seqs",
                "pdBufferSize",
                f"{buffer} holds {typical.in_flight} in-flight transfers of {prompts} prompts "
                f"({typical.tokens:,} tokens, {format_bytes(typical.bytes_per_rank)} per rank), "
                f"fewer than the decoder's --max-num-seqs {sizing.decode_max_num_seqs}; the rest "
                f'wait for space ("Failed to allocate memory object"); allowed without waiting: '
                f"at least {format_bytes(needed)}",
            )
        )
    if sizing.recommended_pd_buffer_bytes is None:
        busy = sizing.concurrent_transfers * typical.bytes_per_rank + longest.bytes_per_rank
        found.append(
            info(
                "no-pd-buffer-fits",
                "pdBufferSize",
                f"no whole-GiB buffer within the {format_bytes(sizing.hbm.pd_buffer_room_bytes)} "
                f"the decoder's HBM leaves holds {sizing.concurrent_transfers} transfers of "
                f"{typical.tokens:,} tokens plus one of {longest.tokens:,} "
                f"({format_bytes(busy)}); lower the decoder's gpuMemoryUtilization, maxModelLen "
                "or the expected concurrency",
            )
        )
    return found


def _kv_replication(sizing: EndpointSizing) -> list[Finding]:
    model, tp = sizing.architecture, sizing.tensor_parallel_size
    heads = model.attention_heads
    if heads and heads % tp:
        # vLLM's ModelConfig.verify_with_parallel_config: "Total number of attention heads
        # must be divisible by tensor parallel size".
        return [
            error(
                "heads-not-divisible",
                "tensorParallelSize",
                f"{tp} does not divide the {heads} attention heads of {model.name}, which vLLM "
                f"refuses; allowed: a size that divides {heads}",
            )
        ]
    if model.attention == "MLA" or tp <= model.kv_heads:
        return []
    return [
        warning(
            "kv-replicated",
            "tensorParallelSize",
            f"{tp} is more than the model's {model.kv_heads} KV heads, so ranks hold copies "
            f"of the same heads and the KV per rank stops shrinking; allowed without "
            f"replication: up to {model.kv_heads}",
        )
    ]


def _model_fit(spec: EndpointSpec, model: ModelArchitecture) -> list[Finding]:
    field = "modelName" if spec.architecture is None else "architecture"
    found = []
    if model.parameters < DPD_MIN_PARAMETERS:
        found.append(
            warning(
                "model-under-70b",
                field,
                f"{model.name} has {model.parameters / 1e9:.4g}B parameters; DPD pays off for "
                "models of 70B or more, and a colocated deployment is simpler",
            )
        )
    if model.moe:
        found.append(
            warning(
                "moe-model",
                field,
                f"{model.name} is a mixture-of-experts model; DPD pays off for dense models, "
                "and MoE models typically gain nothing from it",
            )
        )
    return found


def _workload_fit(spec: EndpointSpec) -> list[Finding]:
    workload = spec.workload
    if workload is None:
        return []
    found = []
    inputs = workload.typical_input_tokens
    if inputs is not None and inputs <= DPD_MIN_INPUT_TOKENS:
        found.append(
            warning(
                "short-inputs",
                "workload.typicalInputTokens",
                f"{inputs:,} is not over {DPD_MIN_INPUT_TOKENS:,}: DPD pays off for inputs over "
                f"{DPD_MIN_INPUT_TOKENS:,} tokens, whose long prefills would stall colocated "
                "decoding",
            )
        )
    if inputs is not None and inputs < spec.routing_threshold:
        found.append(
            warning(
                "inputs-below-routing-threshold",
                "workload.typicalInputTokens",
                f"{inputs:,} is below routingThreshold {spec.routing_threshold:,}, so most "
                f"requests bypass the prefiller and DPD; allowed: a routingThreshold of at most "
                f"{inputs:,}",
            )
        )
    rate = workload.requests_per_second
    if rate is not None and rate <= DPD_MIN_REQUESTS_PER_SECOND:
        found.append(
            warning(
                "low-request-rate",
                "workload.requestsPerSecond",
                f"{rate:g} is not over {DPD_MIN_REQUESTS_PER_SECOND}: DPD pays off above "
                f"{DPD_MIN_REQUESTS_PER_SECOND} requests per second sustained; without requests "
                "competing for the GPUs there is nothing to disaggregate",
            )
        )
    outputs = workload.output_tokens
    if outputs is not None and outputs <= DPD_MIN_OUTPUT_TOKENS:
        found.append(
            warning(
                "short-outputs",
                "workload.outputTokens",
                f"{outputs:,} is not over {DPD_MIN_OUTPUT_TOKENS}: DPD pays off for outputs over "
                f"{DPD_MIN_OUTPUT_TOKENS} tokens, where a steadier time per token adds up",
            )
        )
    concurrency = workload.concurrency
    if concurrency is not None and concurrency > VALIDATED_CONCURRENCY:
        found.append(
            warning(
                "concurrency-beyond-validated",
                "workload.concurrency",
                f"{concurrency} is over the {VALIDATED_CONCURRENCY} concurrent requests DPD is "
                "validated for (ml.p5.48xlarge, Llama 3.3 70B); load-test beyond that",
            )
        )
    return found


# vLLM lets maxModelLen pass the model's own length when this variable is 1 or true
# (vllm/envs.py); flags that rescale RoPE change the length itself.
ALLOW_LONG_CONTEXT = "VLLM_ALLOW_LONG_MAX_MODEL_LEN"
ROPE_FLAGS = ("--hf-overrides", "--rope-scaling", "--rope-theta")


def _context(spec: EndpointSpec, model: ModelArchitecture) -> list[Finding]:
    limit = model.context_length
    allowed = spec.environment_variables.get(ALLOW_LONG_CONTEXT, "").strip().lower()
    args = [*spec.worker_args, *(a for role, _ in spec.roles().values() for a in role.args)]
    rescaled = any(canonical_flag(name) in ROPE_FLAGS for name in flag_names(args))
    if limit is None or spec.max_model_len <= limit or allowed in ("1", "true") or rescaled:
        return []
    return [
        error(
            "context-beyond-model",
            "maxModelLen",
            f"{spec.max_model_len} is more than the {limit} tokens {model.name} supports "
            f"(its config.json), which vLLM refuses; set at most {limit}, or set "
            f"environmentVariables.{ALLOW_LONG_CONTEXT}: '1' if you know the model extrapolates",
        )
    ]


def check_sizing(spec: EndpointSpec, sizing: EndpointSizing) -> list[Finding]:
    # An aggregated endpoint has no PD buffer and asks nothing of DPD.
    dpd = not spec.aggregated
    return [
        *_hbm(spec, sizing),
        *(_pd_buffer(spec, sizing) if dpd else []),
        *_kv_replication(sizing),
        *(_model_fit(spec, sizing.architecture) if dpd else []),
        *_context(spec, sizing.architecture),
        *(_workload_fit(spec) if dpd else []),
    ]


def review_sizing(spec: EndpointSpec, model: ModelArchitecture | None) -> SizingReport:
    sizing = None if model is None else size_endpoint(spec, model)
    findings = [] if sizing is None else check_sizing(spec, sizing)
    return SizingReport(spec.name, sizing, findings, endpoint_replicas(spec))
