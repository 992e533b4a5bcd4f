"""Each endpoint's sizing as a table (`size`, the render summary) and as `sizing.json`."""

from dataclasses import asdict
from typing import Any

from pydantic.alias_generators import to_camel

from components.core.units import format_bytes
from components.model.architecture import ModelArchitecture
from components.sizing.checks import SizingReport
from components.sizing.kv import CHUNK_TOKENS, EndpointSizing
from infra.rollout_room import EndpointRoom

HBM_FIGURES = (
    "per_gpu_bytes", "weights_bytes_per_gpu", "utilization_bytes", "kv_pool_bytes_per_gpu",
    "pd_buffer_bytes", "overhead_bytes", "headroom_bytes",
)  # fmt: skip


def _camel(fields: Any) -> dict[str, Any]:
    return {to_camel(k): v for k, v in asdict(fields).items()}


def _endpoint_json(report: SizingReport) -> dict[str, Any]:
    sizing, replicas = report.sizing, report.replicas
    placed = {
        "name": report.name,
        "mode": "dpd" if {"prefill", "decode"} == set(replicas.roles) else "aggregated",
        "replicas": {
            name: {
                "minReplicas": r.minimum,
                "maxReplicas": r.maximum,
                "gpus": r.gpus,
                "metric": r.metric,
            }
            for name, r in replicas.roles.items()
        },
        "maxGpus": replicas.max_gpus,
    }
    if sizing is None:
        return {**placed, "architecture": None}
    hbm = sizing.hbm
    # An aggregated endpoint moves no KV between pods: no PD buffer, no transfers.
    dpd = not sizing.aggregated
    return {
        **placed,
        "architecture": sizing.architecture.name,
        "tensorParallelSize": sizing.tensor_parallel_size,
        "kvBytesPerTokenPerRank": sizing.kv_bytes_per_token_per_rank,
        "chunkTokens": CHUNK_TOKENS,
        "pdBufferBytes": sizing.pd_buffer_bytes if dpd else None,
        "transfers": {
            "routingThreshold": _camel(sizing.routing_threshold),
            "maxModelLen": _camel(sizing.max_model_len),
            "typicalInput": sizing.typical_input and _camel(sizing.typical_input),
        }
        if dpd
        else None,
        "hbm": {to_camel(figure): getattr(hbm, figure) for figure in HBM_FIGURES},
        "recommendedPdBufferBytes": sizing.recommended_pd_buffer_bytes if dpd else None,
        "findings": [
            {"level": f.level, "code": f.code, "message": f.message} for f in report.findings
        ],
    }


def replacement_json(room: EndpointRoom) -> dict[str, Any]:
    """How a change reaches the endpoint (infra/rollout_room.py), its keys in camelCase."""
    return _camel(room) | {"gpusDuring": room.gpus_during}


def sizing_document(
    reports: list[SizingReport],
    cost: dict[str, Any] | None = None,
    predictions: list[dict[str, Any] | None] | None = None,
    rollouts: list[EndpointRoom] | None = None,
) -> dict[str, Any]:
    """sizing.json: each endpoint's sizing, the performance model's `prediction` (None
    without a workload to predict) and how a replacement of it goes (`replacement`), and what
    the nodes cost (None: an existing cluster's)."""
    predicted = predictions or [None] * len(reports)
    replacements = [replacement_json(r) for r in rollouts] if rollouts else [None] * len(reports)
    endpoints = [
        {**_endpoint_json(report), "prediction": prediction, "replacement": replacement}
        for report, prediction, replacement in zip(reports, predicted, replacements, strict=True)
    ]
    return {"endpoints": endpoints, "cost": cost}


def _describe(model: ModelArchitecture) -> str:
    if model.attention == "MLA":
        shape = f"{model.layers} layers x ({model.kv_lora_rank} + {model.qk_rope_head_dim})"
    else:
        shape = f"{model.layers} layers x {model.kv_heads} KV heads x {model.head_dim}"
    if model.sliding_window_layers:
        shape += f", {model.sliding_window_layers} of them a {model.sliding_window}-token window"
    kind = "MoE" if model.moe else "dense"
    return (
        f"{model.attention}, {shape}, {model.dtype}; {model.parameters / 1e9:.4g}B parameters, "
        f"{kind}"
    )


def _transfer_row(label: str, tokens: str, per_rank: str, in_flight: str, seconds: str) -> str:
    return f"    {label:<20}{tokens:>8}{per_rank:>12}{in_flight:>11}{seconds:>16}"


def _transfer_lines(sizing: EndpointSizing) -> list[str]:
    transfers = [
        ("routingThreshold", sizing.routing_threshold),
        ("maxModelLen", sizing.max_model_len),
    ]
    if sizing.typical_input:
        transfers.append(("typicalInput", sizing.typical_input))
    efa = f"{sizing.instance.efa_gbps} Gbps EFA"
    return [
        f"  PD buffer per rank      {format_bytes(sizing.pd_buffer_bytes)}",
        "  transfers of one prompt",
        _transfer_row("", "tokens", "per rank", "in flight", efa),
        *(
            _transfer_row(
                label,
                f"{t.tokens:,}",
                format_bytes(t.bytes_per_rank),
                str(t.in_flight),
                f"{t.seconds * 1000:.3g} ms",
            )
            for label, t in transfers
        ),
    ]


def sizing_table(report: SizingReport) -> list[str]:
    sizing = report.sizing
    placed = [
        *(f"  {f'{n} replicas':<24}{r.describe()}" for n, r in report.replicas.roles.items()),
        f"  GPUs at most            {report.replicas.max_gpus}",
    ]
    if sizing is None:
        return [f"{report.name}: not sized, its architecture being unknown", *placed]
    hbm = sizing.hbm
    model, instance = sizing.architecture, sizing.instance
    typical = sizing.typical_transfer
    recommended = (
        f"{format_bytes(sizing.recommended_pd_buffer_bytes)}: "
        if sizing.recommended_pd_buffer_bytes is not None
        else f"none fits in {format_bytes(hbm.pd_buffer_room_bytes)}: "
    )
    recommended += (
        f"{sizing.concurrent_transfers} transfers of {typical.tokens:,} tokens "
        f"and one of {sizing.max_model_len.tokens:,} at once"
    )
    lines = [
        f"{sizing.name}: {model.name} on {instance.name}, tensorParallelSize "
        f"{sizing.tensor_parallel_size}",
        *placed,
        f"  architecture            {_describe(model)}",
        f"  KV per token per rank   {format_bytes(sizing.kv_bytes_per_token_per_rank)}, "
        f"moved in {CHUNK_TOKENS}-token chunks",
        *([] if sizing.aggregated else _transfer_lines(sizing)),
        f"  decoder HBM per GPU     {format_bytes(hbm.per_gpu_bytes)} ({instance.gpu})",
        f"    vLLM share            {format_bytes(hbm.utilization_bytes)} "
        f"(--gpu-memory-utilization {hbm.gpu_memory_utilization})",
        f"      weights             {format_bytes(hbm.weights_bytes_per_gpu)}",
        f"      KV pool             {format_bytes(hbm.kv_pool_bytes_per_gpu)} (less activations)",
        *(
            []
            if sizing.aggregated
            else [f"    PD buffer             {format_bytes(hbm.pd_buffer_bytes)}"]
        ),
        f"    CUDA overhead         {format_bytes(hbm.overhead_bytes)}",
        f"    headroom              {format_bytes(hbm.headroom_bytes)}",
        *([] if sizing.aggregated else [f"  recommended PD buffer   {recommended}"]),
        f"  findings                {'' if report.findings else 'none'}",
        *(f"    {f.level} {f.code} ({f.field}): {f.message}" for f in report.findings),
    ]
    return [line.rstrip() for line in lines]
