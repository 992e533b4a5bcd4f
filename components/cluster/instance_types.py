"""The GPU instance types this project knows, and their facts: the one table that sizing, the
planner, pricing and the checks read (CONTRIBUTING.md: "Adding an instance type").

DPD moves the KV cache over EFA with GPU-Direct RDMA, so the operator runs it only on the types
marked `dpd`, each with eight GPUs; the others (the G5, G6, G6e and P4 types HyperPod offers, per
cfn-lint's AWS::SageMaker::Cluster enum) serve colocated endpoints only.

Figures: GPUs, network bandwidth and memory (GiB) from EC2's accelerated computing instance
specifications as tabulated by instances.vantage.sh (github.com/tsaol/aws-gpu, data/*_instances.js,
2026-08-26 and commit 77fcd9f); EFA at the network bandwidth on p4d, p4de and the 8xlarge sizes
up (EC2's "Supported instance types" for EFA), none below. HBM as nvidia-smi's memory.total:
23,028 MiB on A10G, 23,034 on L4, 46,068 on L40S, 40,960 on A100 40 GB, 81,920 on A100 80 GB.
"""

import re
from dataclasses import dataclass

from components.core.units import GIB, MIB


@dataclass(frozen=True)
class GpuInstanceType:
    name: str
    # A key of GPUS (planner/hardware.py), which holds its datasheet figures.
    gpu: str
    gpus: int
    # nvidia-smi's memory.total, of which --gpu-memory-utilization is a fraction: 81,559 MiB on
    # H100, 143,771 on H200, 183,359 on B200 and 275,040 on B300 (taken down to whole GiB).
    hbm_bytes_per_gpu: int
    # Per instance. EC2 accelerated computing instance specifications: 3,200 Gbps on p5, p5e,
    # p5en and p6-b200, 6,400 on p6-b300.
    efa_gbps: int
    # The node's memory, GiB, as EC2 sells it; what the kubelet can give pods is less.
    memory_gib: int
    dpd: bool

    @property
    def vcpu_count(self) -> int:
        count = vcpus(self.name)
        assert count is not None, f"{self.name} has no size name to read its vCPUs from"
        return count


GPU_INSTANCE_TYPES: dict[str, GpuInstanceType] = {
    t.name: t
    for t in (
        GpuInstanceType("ml.p5.48xlarge", "H100", 8, 81_559 * MIB, 3_200, 2_048, dpd=True),
        GpuInstanceType("ml.p5e.48xlarge", "H200", 8, 143_771 * MIB, 3_200, 2_048, dpd=True),
        GpuInstanceType("ml.p5en.48xlarge", "H200", 8, 143_771 * MIB, 3_200, 2_048, dpd=True),
        GpuInstanceType("ml.p6-b200.48xlarge", "B200", 8, 179 * GIB, 3_200, 2_048, dpd=True),
        GpuInstanceType("ml.p6-b300.48xlarge", "B300", 8, 268 * GIB, 6_400, 4_096, dpd=True),
        GpuInstanceType("ml.g5.xlarge", "A10G", 1, 23_028 * MIB, 0, 16, dpd=False),
        GpuInstanceType("ml.g5.2xlarge", "A10G", 1, 23_028 * MIB, 0, 32, dpd=False),
        GpuInstanceType("ml.g5.4xlarge", "A10G", 1, 23_028 * MIB, 0, 64, dpd=False),
        GpuInstanceType("ml.g5.8xlarge", "A10G", 1, 23_028 * MIB, 25, 128, dpd=False),
        GpuInstanceType("ml.g5.12xlarge", "A10G", 4, 23_028 * MIB, 40, 192, dpd=False),
        GpuInstanceType("ml.g5.16xlarge", "A10G", 1, 23_028 * MIB, 25, 256, dpd=False),
        GpuInstanceType("ml.g5.24xlarge", "A10G", 4, 23_028 * MIB, 50, 384, dpd=False),
        GpuInstanceType("ml.g5.48xlarge", "A10G", 8, 23_028 * MIB, 100, 768, dpd=False),
        GpuInstanceType("ml.g6.xlarge", "L4", 1, 23_034 * MIB, 0, 16, dpd=False),
        GpuInstanceType("ml.g6.2xlarge", "L4", 1, 23_034 * MIB, 0, 32, dpd=False),
        GpuInstanceType("ml.g6.4xlarge", "L4", 1, 23_034 * MIB, 0, 64, dpd=False),
        GpuInstanceType("ml.g6.8xlarge", "L4", 1, 23_034 * MIB, 25, 128, dpd=False),
        GpuInstanceType("ml.g6.12xlarge", "L4", 4, 23_034 * MIB, 40, 192, dpd=False),
        GpuInstanceType("ml.g6.16xlarge", "L4", 1, 23_034 * MIB, 25, 256, dpd=False),
        GpuInstanceType("ml.g6.24xlarge", "L4", 4, 23_034 * MIB, 50, 384, dpd=False),
        GpuInstanceType("ml.g6.48xlarge", "L4", 8, 23_034 * MIB, 100, 768, dpd=False),
        GpuInstanceType("ml.g6e.xlarge", "L40S", 1, 46_068 * MIB, 0, 32, dpd=False),
        GpuInstanceType("ml.g6e.2xlarge", "L40S", 1, 46_068 * MIB, 0, 64, dpd=False),
        GpuInstanceType("ml.g6e.4xlarge", "L40S", 1, 46_068 * MIB, 0, 128, dpd=False),
        GpuInstanceType("ml.g6e.8xlarge", "L40S", 1, 46_068 * MIB, 25, 256, dpd=False),
        GpuInstanceType("ml.g6e.12xlarge", "L40S", 4, 46_068 * MIB, 100, 384, dpd=False),
        GpuInstanceType("ml.g6e.16xlarge", "L40S", 1, 46_068 * MIB, 35, 512, dpd=False),
        GpuInstanceType("ml.g6e.24xlarge", "L40S", 4, 46_068 * MIB, 200, 768, dpd=False),
        GpuInstanceType("ml.g6e.48xlarge", "L40S", 8, 46_068 * MIB, 400, 1_536, dpd=False),
        GpuInstanceType("ml.p4d.24xlarge", "A100-40GB", 8, 40_960 * MIB, 400, 1_152, dpd=False),
        GpuInstanceType("ml.p4de.24xlarge", "A100-80GB", 8, 81_920 * MIB, 400, 1_152, dpd=False),
    )
}
DPD_INSTANCE_TYPES = {name: t for name, t in GPU_INSTANCE_TYPES.items() if t.dpd}

# The inference operator's pods need an amd64 node with at least 13 free pod slots;
# ml.c5.4xlarge (16 vCPUs) is the smallest recommended.
SYSTEM_GROUP_MIN_VCPUS = 16
SYSTEM_GROUP_EXAMPLE = "ml.c5.4xlarge"

_SHAPE = re.compile(
    r"^ml\.(?P<family>[a-z]+)(?P<generation>\d+)(?P<traits>[a-z0-9-]*)\.(?P<size>.+)$"
)
_ACCELERATED_FAMILIES = ("p", "g", "trn", "inf", "dl")


def vcpus(instance_type: str) -> int | None:
    """vCPUs from the size name (xlarge = 4, Nxlarge = 4N), or None if it has no such name."""
    shape = _SHAPE.match(instance_type)
    size = shape["size"] if shape else ""
    if size == "large":
        return 2
    multiple = re.fullmatch(r"(\d*)xlarge", size)
    return 4 * int(multiple[1] or 1) if multiple else None


def is_accelerated(instance_type: str) -> bool:
    shape = _SHAPE.match(instance_type)
    return shape is not None and shape["family"] in _ACCELERATED_FAMILIES


def is_graviton(instance_type: str) -> bool:
    shape = _SHAPE.match(instance_type)
    return shape is not None and "g" in shape["traits"]
