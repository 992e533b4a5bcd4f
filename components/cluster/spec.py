"""The typed description of the clusters: EKS, and HyperPod with its instance groups."""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from typing import Annotated, Literal

from pydantic import Field, field_validator

from components.cluster.eks_versions import SupportType
from components.core.kubernetes_names import LabelKey, LabelValue
from components.core.spec import Spec
from components.network.spec import AzId
from components.operator.versions import at_least

DEEP_HEALTH_CHECKS = ("InstanceStress", "InstanceConnectivity")
# HyperPod's pattern for cluster and instance group names.
HYPERPOD_NAME = r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$"
# EKS's pattern for cluster names (AWS::EKS::Cluster `Name` in CloudFormation's schema, which
# cfn-lint ships): at most 100 characters.
EKS_NAME = r"^[0-9A-Za-z][A-Za-z0-9\-_]*$"
# The oldest vpc-cni add-on HyperPod's EKS clusters take: older ones lack what HyperPod's
# network interfaces need (DESIGN.md, "The HyperPod EKS cluster", step 5).
VPC_CNI_MINIMUM = "v1.18.3"
# Karpenter's duration format for disruption.consolidateAfter (its NodePool CRD, karpenter.sh/v1).
CONSOLIDATE_AFTER = r"^(([0-9]+(s|m|h))+|Never)$"
IamArn = Annotated[str, Field(pattern=r"^arn:aws[a-z-]*:iam::[0-9]{12}:(role|user)/.+$")]


class Taint(Spec):
    key: str = Field(min_length=1)
    value: str | None = None
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]


class InstanceGroupSpec(Spec):
    name: str = Field(pattern=HYPERPOD_NAME)
    instance_type: str = Field(pattern=r"^ml\.[a-z0-9-]+\.[a-z0-9]+$")
    # With cluster.autoscaling on, a GPU group's most nodes: Karpenter adds them as pods need.
    instance_count: int = Field(ge=1)
    # How many nodes make the group InService (HyperPod's MinInstanceCount); None: all of them.
    min_instance_count: int | None = Field(None, ge=0)
    availability_zone_id: AzId
    threads_per_core: Literal[1, 2] = 1
    ebs_volume_size_gb: int = Field(500, ge=1, le=16384)
    # None runs both deep health checks on GPU groups and none on CPU groups.
    deep_health_checks: list[Literal["InstanceStress", "InstanceConnectivity"]] | None = None
    training_plan_arn: str | None = Field(
        None, pattern=r"^arn:aws[a-z-]*:sagemaker:[a-z0-9-]+:[0-9]{12}:training-plan/.+$"
    )
    labels: dict[LabelKey, LabelValue] = {}
    taints: list[Taint] = []


class ExistingCluster(Spec):
    """A HyperPod EKS cluster you already run: this stack then manages only what runs in it."""

    eks_cluster_name: str = Field(min_length=1, max_length=100, pattern=EKS_NAME)
    hyperpod_cluster_arn: str = Field(
        pattern=r"^arn:aws[a-z-]*:sagemaker:[a-z0-9-]+:[0-9]{12}:cluster/[a-z0-9]+$"
    )


class AddonVersions(Spec):
    """Pinned EKS add-on versions; unset ones take EKS's default for the Kubernetes version."""

    vpc_cni: str | None = Field(None, pattern=r"^v\d+\.\d+\.\d+(-eksbuild\.\d+)?$")
    kube_proxy: str | None = None
    coredns: str | None = None
    pod_identity_agent: str | None = None

    @field_validator("vpc_cni")
    @classmethod
    def _vpc_cni_floor(cls, value: str | None) -> str | None:
        if value is not None and not at_least(value, VPC_CNI_MINIMUM):
            raise ValueError(f"must be {VPC_CNI_MINIMUM} or later, the oldest HyperPod supports")
        return value


class EndpointAccess(Spec):
    """Who reaches the EKS API: from the VPC (private), and from these CIDRs (public)."""

    public: bool = True
    # Required while public is true, since EKS's default is 0.0.0.0/0 (stack_checks refuses
    # the default; write [0.0.0.0/0] to mean it).
    public_cidrs: list[str] | None = None
    private: bool = True

    @field_validator("public_cidrs")
    @classmethod
    def _cidrs(cls, value: list[str] | None) -> list[str] | None:
        for cidr in value or []:
            try:
                ipaddress.IPv4Network(cidr)
            except ValueError:
                raise ValueError(f"{cidr!r} is not an IPv4 CIDR such as 203.0.113.0/24") from None
        return value


class UpgradePolicy(Spec):
    """What EKS does to the control plane on its version's end-of-standard-support day."""

    # EXTENDED stays on the version, billed as extended support; STANDARD is upgraded to the
    # next version by EKS. EXTENDED by default: HyperPod supports nothing newer than 1.34, so
    # STANDARD would move the cluster onto a version HyperPod doesn't list (see
    # components/cluster/eks_versions.py for the sources, kubernetes_version_checks.py for
    # the warnings).
    support_type: SupportType = "EXTENDED"


class ClusterAutoscaling(Spec):
    """HyperPod's managed Karpenter: GPU groups start empty and grow with pending pods."""

    enabled: bool = False
    # How long a GPU node stays empty before Karpenter removes it (the NodePool's
    # disruption.consolidateAfter; Karpenter's own default is 0s). components/cluster/karpenter.py
    # says why an hour; `Never` keeps empty nodes until the group is scaled by hand.
    consolidate_after: str = "1h"

    @field_validator("consolidate_after")
    @classmethod
    def _karpenter_duration(cls, value: str) -> str:
        if not re.fullmatch(CONSOLIDATE_AFTER, value):
            raise ValueError("must be a duration such as 30m, 1h or 1h30m, or Never")
        return value


class ClusterSpec(Spec):
    # Name of the EKS and the HyperPod cluster; hyperpod-dpd-<stack> when unset.
    name: str | None = Field(None, pattern=HYPERPOD_NAME)
    # Checked against HyperPod's and EKS's versions on the day the program runs, for a new
    # cluster only: see components/cluster/kubernetes_version_checks.py.
    kubernetes_version: str = "1.34"
    upgrade_policy: UpgradePolicy = UpgradePolicy()
    admin_role_arns: list[IamArn] = []
    ci_role_arns: list[IamArn] = []
    instance_groups: list[InstanceGroupSpec] = []
    addon_versions: AddonVersions = AddonVersions()
    # HyperPod's managed tiered storage (TieredStorageConfig), the `tieredstorage` L2 KV cache
    # backend. None enables it when an endpoint uses that backend.
    tiered_storage: bool | None = None
    # Where `make chart` puts the HyperPod dependencies Helm chart.
    dependencies_chart: str = "build/charts/sagemaker-hyperpod-cli/helm_chart/HyperPodHelmChart"
    existing: ExistingCluster | None = None
    endpoint_access: EndpointAccess = EndpointAccess()
    # Refuse `pulumi destroy` of the EKS and HyperPod clusters (what serving depends on).
    protect: bool = False
    autoscaling: ClusterAutoscaling = ClusterAutoscaling()


def tiered_storage(cluster: ClusterSpec, l2_backends: Iterable[str | None]) -> bool | None:
    """The HyperPod cluster's tiered storage: as set; else enabled when an endpoint's L2 cache
    uses it, and left unset (None) when none does."""
    if cluster.tiered_storage is None and "tieredstorage" in l2_backends:
        return True
    return cluster.tiered_storage
