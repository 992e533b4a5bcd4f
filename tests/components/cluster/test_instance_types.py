"""The instance table: what a DPD type must have, and what the shape of a name tells."""

from components.cluster.instance_types import (
    DPD_INSTANCE_TYPES,
    GPU_INSTANCE_TYPES,
    is_accelerated,
    is_graviton,
    vcpus,
)


def test_every_dpd_type_has_eight_gpus_and_efa():
    # The operator moves the KV cache over EFA with GPU-Direct RDMA, within 8-GPU nodes.
    unfit = [n for n, t in DPD_INSTANCE_TYPES.items() if t.gpus != 8 or t.efa_gbps <= 0]
    assert not unfit, f"marked dpd without 8 GPUs and EFA, which DPD needs: {unfit}"


def test_a_size_name_gives_the_vcpus_and_a_family_whether_it_is_accelerated():
    assert (vcpus("ml.c5.4xlarge"), vcpus("ml.m5.large"), vcpus("ml.p5.48xlarge")) == (16, 2, 192)
    assert vcpus("ml.c5.metal") is None
    assert is_accelerated("ml.p6-b300.48xlarge") and is_accelerated("ml.g5.8xlarge")
    assert not is_accelerated("ml.c5.4xlarge")
    assert is_graviton("ml.m7g.4xlarge") and not is_graviton("ml.m7i.4xlarge")


def test_every_gpu_type_has_a_size_name_that_gives_its_vcpus():
    # The table keeps no vCPU column: the name gives them (4 per xlarge), as its source lists.
    unread = [name for name in GPU_INSTANCE_TYPES if vcpus(name) is None]
    assert not unread, f"no vCPUs in these names; give the row a vCPU figure: {unread}"
