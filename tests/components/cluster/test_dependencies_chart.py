"""The pinned dependencies chart runs its device plugins on every GPU instance type we know.

A node whose type the chart's NVIDIA device plugin skips never advertises nvidia.com/gpu, and
one the EFA device plugin skips never advertises vpc.amazonaws.com/efa: the pods stay Pending.
"""

from components.cluster.dependencies_chart import CHART_REPOSITORY, CHART_REVISION
from components.cluster.instance_types import GPU_INSTANCE_TYPES

# The GPU types (ml.g*, ml.p*) that the chart's helm_chart/HyperPodHelmChart/values.yaml lists at
# READ_AT (tag v3.9.0): nvidia-device-plugin's node affinity, aws-efa-k8s-device-plugin's
# supportedInstanceLabels.
# fmt: off
READ_AT = "b01cf90676553a711ab1a8ac51422adbb09aef6b"
NVIDIA_DEVICE_PLUGIN = {
    "ml.g5.xlarge", "ml.g5.2xlarge", "ml.g5.4xlarge", "ml.g5.8xlarge", "ml.g5.12xlarge",
    "ml.g5.16xlarge", "ml.g5.24xlarge", "ml.g5.48xlarge", "ml.g6.xlarge", "ml.g6.2xlarge",
    "ml.g6.4xlarge", "ml.g6.8xlarge", "ml.g6.16xlarge", "ml.g6.12xlarge", "ml.g6.24xlarge",
    "ml.g6.48xlarge", "ml.g6e.xlarge", "ml.g6e.2xlarge", "ml.g6e.4xlarge", "ml.g6e.8xlarge",
    "ml.g6e.12xlarge", "ml.g6e.16xlarge", "ml.g6e.24xlarge", "ml.g6e.48xlarge", "ml.g7e.2xlarge",
    "ml.g7e.4xlarge", "ml.g7e.8xlarge", "ml.g7e.12xlarge", "ml.g7e.24xlarge", "ml.g7e.48xlarge",
    "ml.gr6.4xlarge", "ml.gr6.8xlarge", "ml.p4d.24xlarge", "ml.p4de.24xlarge", "ml.p5.4xlarge",
    "ml.p5.48xlarge", "ml.p5e.48xlarge", "ml.p5en.48xlarge", "ml.p6-b200.48xlarge",
    "ml.p6-b300.48xlarge", "ml.p6e-gb200.36xlarge",
}
EFA_DEVICE_PLUGIN = {
    "ml.g5.8xlarge", "ml.g5.12xlarge", "ml.g5.16xlarge", "ml.g5.24xlarge", "ml.g5.48xlarge",
    "ml.g6.8xlarge", "ml.g6.12xlarge", "ml.g6.16xlarge", "ml.g6.24xlarge", "ml.g6.48xlarge",
    "ml.g6e.8xlarge", "ml.g6e.12xlarge", "ml.g6e.16xlarge", "ml.g6e.24xlarge", "ml.g6e.48xlarge",
    "ml.g7e.8xlarge", "ml.g7e.12xlarge", "ml.g7e.24xlarge", "ml.g7e.48xlarge", "ml.gr6.8xlarge",
    "ml.p4d.24xlarge", "ml.p4de.24xlarge", "ml.p5.4xlarge", "ml.p5.48xlarge", "ml.p5e.48xlarge",
    "ml.p5en.48xlarge", "ml.p6-b200.48xlarge", "ml.p6-b300.48xlarge", "ml.p6e-gb200.36xlarge",
}
# fmt: on
WHAT_TO_DO = (
    f"pin a revision of {CHART_REPOSITORY} whose helm_chart/HyperPodHelmChart/values.yaml lists "
    "them (CHART_REVISION in components/cluster/dependencies_chart.py), copy that file's lists "
    "into this test and set READ_AT"
)


def test_the_lists_here_are_the_pinned_revisions():
    assert CHART_REVISION == READ_AT, f"CHART_REVISION moved: {WHAT_TO_DO}"


def test_the_nvidia_device_plugin_runs_on_every_gpu_instance_type():
    skipped = sorted(set(GPU_INSTANCE_TYPES) - NVIDIA_DEVICE_PLUGIN)
    assert not skipped, f"the chart's NVIDIA device plugin skips {skipped}: {WHAT_TO_DO}"


def test_the_efa_device_plugin_runs_on_every_instance_type_with_efa():
    with_efa = {name for name, t in GPU_INSTANCE_TYPES.items() if t.efa_gbps > 0}
    skipped = sorted(with_efa - EFA_DEVICE_PLUGIN)
    assert not skipped, f"the chart's EFA device plugin skips {skipped}: {WHAT_TO_DO}"
