"""What one GPU of each instance type computes and moves, per second.

Tensor-core peaks are dense (half NVIDIA's "with sparsity" figures). Sources:
- H100 SXM: NVIDIA H100 Tensor Core GPU datasheet: BF16 1,979 TFLOPS and FP8 3,958 TFLOPS with
  sparsity (989.5 / 1,979 dense), 80 GB HBM3 at 3.35 TB/s, NVLink 900 GB/s.
- H200 SXM: NVIDIA H200 datasheet: the same tensor cores as H100, 141 GB HBM3e at 4.8 TB/s,
  NVLink 900 GB/s.
- B200: NVIDIA HGX B200 datasheet, per 8 GPUs: FP4 144 PF, FP8 72 PF, BF16 36 PF with sparsity
  (9 / 4.5 / 2.25 PF dense per GPU), 1.4 TB HBM3e (180 GB per GPU), 64 TB/s (8 TB/s per GPU),
  NVLink 5 at 1.8 TB/s per GPU.
- B300: NVIDIA HGX B300 datasheet as tabulated by glennklockwood.com/garden/processors/B300:
  BF16 2,250, FP8 4,500 and FP4 13,125 TFLOPS dense per GPU, 288 GB HBM3e at 8 TB/s, NVLink 5
  at 1.8 TB/s.
- INT8 (W8A8 integer GEMMs): the same rate as FP8 on H100, H200 and B200 (their datasheets);
  Blackwell Ultra cut it to 0.15 POPS dense on B300 (verda.com/blog/gb300-nvl72-architecture,
  per-GPU table), so INT8 there runs far below even BF16. glennklockwood.com lists 4,500 for
  B300 as for B200; the later per-GPU table is taken.
- L40S (g6e): NVIDIA L40S datasheet: BF16 733 and FP8 1,466 TFLOPS, INT8 1,466 TOPS with
  sparsity (362 / 733 / 733 dense), 48 GB GDDR6 at 864 GB/s, no NVLink: its GPUs talk over
  PCIe Gen4 x16, 64 GB/s both ways.
- L4 (g6): NVIDIA L4 datasheet: BF16 242 and FP8 485 TFLOPS, INT8 485 TOPS with sparsity
  (121 / 242.5 / 242.5 dense), 24 GB GDDR6 at 300 GB/s, PCIe Gen4 x16 as on L40S.
- A100 SXM4 (p4d 40 GB, p4de 80 GB): NVIDIA A100 Tensor Core GPU datasheet: BF16 624 TFLOPS and
  INT8 1,248 TOPS with sparsity (312 / 624 dense), HBM2 at 1,555 GB/s (40 GB) and HBM2e at
  2,039 GB/s (80 GB), NVLink 600 GB/s. Ampere has no FP8 or FP4 unit: vLLM runs FP8 weights on
  it as weight-only W8A16 (its Marlin kernels), so at the BF16 peak.
- A10G (g5): NVIDIA publishes no datasheet for AWS's A10G, only for the A10, which differs; with
  no figures, the planner's advice on a g5 endpoint is a warning that names the GPU.
- NVLink figures are both directions; one direction, what an all-reduce or all-to-all moves
  out of a GPU, is half.
HBM capacity (what CUDA sees), GPUs and EFA per instance: `components.cluster.instance_types`.
"""

from dataclasses import dataclass

from components.cluster.instance_types import GPU_INSTANCE_TYPES
from planner.scenario import ScenarioError

TERA = 1e12
BITS_PER_BYTE = 8


@dataclass(frozen=True)
class Gpu:
    name: str
    # Dense tensor-core FLOP/s by GEMM precision; None where the GPU has no such unit.
    bf16_flops: float
    fp8_flops: float
    fp4_flops: float | None
    hbm_bytes_per_second: float
    # One direction, per GPU.
    nvlink_bytes_per_second: float
    int8_ops: float

    def peak_flops(self, precision: str) -> float:
        """The GEMM peak for weights in `precision`. Hopper has no FP4 unit: FP4 weights are
        unpacked to FP8 there (vLLM's Marlin and TensorRT-LLM's W4A8 paths). W4A16 (AWQ,
        GPTQ) keeps 16-bit activations: its GEMMs dequantize the weights and run at the BF16
        peak (vLLM's Marlin kernels)."""
        if precision == "fp4":
            return self.fp4_flops or self.fp8_flops
        if precision == "int8":
            return self.int8_ops
        return self.fp8_flops if precision == "fp8" else self.bf16_flops


H100 = Gpu("H100", 989.5 * TERA, 1_979 * TERA, None, 3.35 * TERA, 450e9, 1_979 * TERA)
H200 = Gpu("H200", 989.5 * TERA, 1_979 * TERA, None, 4.8 * TERA, 450e9, 1_979 * TERA)
B200 = Gpu("B200", 2_250 * TERA, 4_500 * TERA, 9_000 * TERA, 8 * TERA, 900e9, 4_500 * TERA)
B300 = Gpu("B300", 2_250 * TERA, 4_500 * TERA, 13_125 * TERA, 8 * TERA, 900e9, 150 * TERA)
L4 = Gpu("L4", 121 * TERA, 242.5 * TERA, None, 0.3 * TERA, 32e9, 242.5 * TERA)
L40S = Gpu("L40S", 362 * TERA, 733 * TERA, None, 0.864 * TERA, 32e9, 733 * TERA)
A100_40GB = Gpu("A100-40GB", 312 * TERA, 312 * TERA, None, 1.555 * TERA, 300e9, 624 * TERA)
A100_80GB = Gpu("A100-80GB", 312 * TERA, 312 * TERA, None, 2.039 * TERA, 300e9, 624 * TERA)
GPUS = {gpu.name: gpu for gpu in (H100, H200, B200, B300, L4, L40S, A100_40GB, A100_80GB)}


@dataclass(frozen=True)
class Machine:
    """One instance type: its GPUs and what connects them."""

    instance_type: str
    gpu: Gpu
    gpus_per_node: int
    hbm_bytes_per_gpu: int
    efa_bytes_per_second_per_gpu: float


def machine(instance_type: str) -> Machine:
    instance = GPU_INSTANCE_TYPES[instance_type]
    if instance.gpu not in GPUS:
        raise ScenarioError(
            f"scenario.instanceType: the performance model has no figures for the "
            f"{instance.gpu} GPUs of {instance_type}; they belong in GPUS "
            "(planner/hardware.py)"
        )
    return Machine(
        instance_type=instance_type,
        gpu=GPUS[instance.gpu],
        gpus_per_node=instance.gpus,
        hbm_bytes_per_gpu=instance.hbm_bytes_per_gpu,
        efa_bytes_per_second_per_gpu=instance.efa_gbps * 1e9 / BITS_PER_BYTE / instance.gpus,
    )
