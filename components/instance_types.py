"""The GPU instance types that Disaggregated Prefill and Decode runs on, and their facts.

DPD moves the KV cache between pods over EFA with GPU-Direct RDMA, so the operator supports
it on exactly these five types. Each has eight GPUs on one node.
"""

from __future__ import annotations

from dataclasses import dataclass

from components.units import GIB, MIB


@dataclass(frozen=True)
class DpdInstanceType:
    name: str
    gpu: str
    gpus: int
    # Memory a CUDA process sees as the device total (what vLLM's
    # --gpu-memory-utilization is a fraction of), not the marketing figure.
    hbm_bytes_per_gpu: int
    efa_gbps: int


DPD_INSTANCE_TYPES: dict[str, DpdInstanceType] = {
    t.name: t
    for t in (
        DpdInstanceType("ml.p5.48xlarge", "H100", 8, 81_559 * MIB, 3_200),
        DpdInstanceType("ml.p5e.48xlarge", "H200", 8, 143_771 * MIB, 3_200),
        DpdInstanceType("ml.p5en.48xlarge", "H200", 8, 143_771 * MIB, 3_200),
        DpdInstanceType("ml.p6-b200.48xlarge", "B200", 8, 179 * GIB, 3_200),
        DpdInstanceType("ml.p6-b300.48xlarge", "B300", 8, 268 * GIB, 6_400),
    )
}
