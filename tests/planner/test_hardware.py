import pytest

from components.cluster.instance_types import DPD_INSTANCE_TYPES
from planner.hardware import GPUS, TERA, machine
from planner.scenario import ScenarioError


def test_every_dpd_instance_types_gpu_has_its_figures():
    missing = sorted({t.gpu for t in DPD_INSTANCE_TYPES.values()} - set(GPUS))
    assert not missing, (
        f"no figures for the {missing} GPUs: add a Gpu for each to GPUS in "
        "planner/hardware.py, with the datasheet it comes from named in the "
        "module's docstring (and a row in docs/contributing/calibration.md's constants)"
    )


@pytest.mark.parametrize(
    "instance_type, gpu, efa_gb_per_gpu, hbm_tb",
    [
        ("ml.p5.48xlarge", "H100", 50, 3.35),
        ("ml.p5e.48xlarge", "H200", 50, 4.8),
        ("ml.p5en.48xlarge", "H200", 50, 4.8),
        ("ml.p6-b200.48xlarge", "B200", 50, 8),
        # 6,400 Gbps over 8 GPUs: twice the others'.
        ("ml.p6-b300.48xlarge", "B300", 100, 8),
        # 100 Gbps over 4 GPUs; 400 over 8.
        ("ml.g6e.12xlarge", "L40S", 3.125, 0.864),
        ("ml.g6e.48xlarge", "L40S", 6.25, 0.864),
        ("ml.p4d.24xlarge", "A100-40GB", 6.25, 1.555),
        ("ml.p4de.24xlarge", "A100-80GB", 6.25, 2.039),
    ],
)
def test_each_instance_type_has_its_gpu_and_its_share_of_efa(
    instance_type, gpu, efa_gb_per_gpu, hbm_tb
):
    found = machine(instance_type)
    assert found.gpu.name == gpu
    assert found.efa_bytes_per_second_per_gpu == efa_gb_per_gpu * 1e9
    assert found.gpu.hbm_bytes_per_second == hbm_tb * TERA


def test_lower_precisions_double_the_peak_and_hopper_runs_fp4_weights_at_fp8():
    hopper, blackwell = machine("ml.p5.48xlarge").gpu, machine("ml.p6-b200.48xlarge").gpu
    assert hopper.peak_flops("fp8") == 2 * hopper.peak_flops("bf16")
    assert hopper.peak_flops("fp4") == hopper.peak_flops("fp8")
    assert blackwell.peak_flops("fp4") == 2 * blackwell.peak_flops("fp8")


def test_int8_runs_at_fp8_speed_except_on_blackwell_ultra_and_w4a16_at_bf16():
    hopper, b200, b300 = (
        machine(t).gpu for t in ("ml.p5.48xlarge", "ml.p6-b200.48xlarge", "ml.p6-b300.48xlarge")
    )
    assert hopper.peak_flops("int8") == hopper.peak_flops("fp8")
    assert b200.peak_flops("int8") == b200.peak_flops("fp8")
    assert b300.peak_flops("int8") < b300.peak_flops("bf16") / 10
    assert b300.peak_flops("w4a16") == b300.peak_flops("bf16")


def test_a_gpu_without_figures_is_a_scenario_error_naming_it_not_a_crash():
    # The endpoint's advice turns it into a warning (tests/infra/test_endpoint_predictions.py).
    with pytest.raises(ScenarioError, match=r"^scenario\.instanceType: .* no figures for the A10G"):
        machine("ml.g5.12xlarge")
