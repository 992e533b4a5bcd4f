"""The typed description of the clusters: EKS, and HyperPod with its instance groups."""

import ipaddress
import re
from collections.abc import Iterable
from typing import Literal

from pydantic import Field, field_validator

from components.cluster.eks_versions import SupportType
from components.core.cidrs import DOCUMENTATION, NEVER_ROUTED, PRIVATE, special_range
from components.core.kubernetes_names import LabelKey
from components.core.shaped import shaped_str
from components.core.spec import Spec, numbers_as_text
from components.network.spec import AzId
from components.operator.spec import addon_release
from components.operator.versions import at_least

DEEP_HEALTH_CHECKS = ("InstanceStress", "InstanceConnectivity")
# HyperPod's pattern for cluster and instance group names.
HYPERPOD_NAME = r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$"
HyperPodName = shaped_str(
    HYPERPOD_NAME,
    "must be 1 to 63 letters, digits or '-', starting and ending with a letter or digit "
    "(HyperPod's rule)",
)
# EKS's pattern for cluster names (AWS::EKS::Cluster `Name` in CloudFormation's schema, which
# cfn-lint ships): at most 100 characters.
EKS_NAME = r"^[0-9A-Za-z][A-Za-z0-9\-_]*$"
# The oldest vpc-cni add-on HyperPod's EKS clusters take: older ones lack what HyperPod's
# network interfaces need (DESIGN.md, "The HyperPod EKS cluster", step 5).
VPC_CNI_MINIMUM = "v1.18.3"
# Karpenter's duration format for disruption.consolidateAfter (its NodePool CRD, karpenter.sh/v1).
CONSOLIDATE_AFTER = r"^(([0-9]+(s|m|h))+|Never)$"
# IAM's names and paths: letters, digits and + = , . @ _ - (IAM API reference, CreateRole), so
# never a wildcard, which an access entry's principal cannot be.
IamArn = shaped_str(
    r"^arn:aws[a-z-]*:iam::[0-9]{12}:(role|user)/([\w+=,.@-]+/)*[\w+=,.@-]{1,64}$",
    "must be an IAM role or user ARN such as arn:aws:iam::123456789012:role/name, with no wildcard",
)


# SageMaker's limits (ClusterKubernetesConfig, ClusterKubernetesTaint): at most 50 labels and
# taints each; taint keys of at most 317 characters; values of 1 to 63.
KUBERNETES_CONFIG_MAX_ITEMS = 50
_DNS_PREFIX = r"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
TAINT_KEY = _DNS_PREFIX + r"[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?"
NODE_VALUE = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
NodeValue = shaped_str(
    NODE_VALUE,
    "must be 1 to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or "
    "digit (SageMaker takes no empty value)",
    max_length=63,
)
# Major.minor only, as EKS's CreateCluster takes it (`1.34`, not `v1.34` or `1.34.2`).
KUBERNETES_MINOR = r"\d+\.\d+"
DEFAULT_KUBERNETES_VERSION = "1.35"
# An EKS add-on version, as DescribeAddonVersions lists them.
EKS_ADDON_VERSION = r"v\d+\.\d+\.\d+-eksbuild\.\d+"
AddonVersion = shaped_str(
    EKS_ADDON_VERSION, "must be an EKS add-on version such as v1.34.1-eksbuild.2"
)


class Taint(Spec):
    key: shaped_str(
        TAINT_KEY,
        "must be a Kubernetes qualified name: an optional lowercase DNS prefix and '/', then "
        "letters, digits, '-', '_' or '.' starting and ending with a letter or digit; at most "
        "317 characters",
        max_length=317,
    )
    value: NodeValue | None = None
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"]


MAX_INSTANCE_COUNT = 6758


class InstanceGroupSpec(Spec):
    name: HyperPodName
    instance_type: shaped_str(
        r"^ml\.[a-z0-9-]+\.[a-z0-9]+$",
        "must be a SageMaker instance type such as ml.p5.48xlarge or ml.c5.4xlarge",
    )
    # With cluster.autoscaling on, a GPU group's most nodes. At most 6758: CloudFormation's
    # AWS::SageMaker::Cluster schema.
    instance_count: int = Field(ge=1, le=MAX_INSTANCE_COUNT)
    # How many nodes make the group InService (HyperPod's MinInstanceCount); None: all of them.
    min_instance_count: int | None = Field(None, ge=0, le=MAX_INSTANCE_COUNT)
    availability_zone_id: AzId
    threads_per_core: Literal[1, 2] = 1
    ebs_volume_size_gb: int = Field(500, ge=1, le=16384)
    # None runs both deep health checks on GPU groups and none on CPU groups.
    deep_health_checks: list[Literal["InstanceStress", "InstanceConnectivity"]] | None = None
    training_plan_arn: (
        shaped_str(
            r"^arn:aws[a-z-]*:sagemaker:[a-z0-9-]+:[0-9]{12}:training-plan/.+$",
            "must be a SageMaker training plan ARN such as "
            "arn:aws:sagemaker:us-west-2:123456789012:training-plan/name",
        )
        | None
    ) = None
    labels: dict[LabelKey, NodeValue] = {}
    taints: list[Taint] = []

    _numbers_as_text = field_validator("labels", mode="before")(numbers_as_text)

    @field_validator("labels", "taints")
    @classmethod
    def _at_most_50(cls, value: dict | list) -> dict | list:
        if len(value) > KUBERNETES_CONFIG_MAX_ITEMS:
            raise ValueError(
                f"holds {len(value)} entries; SageMaker takes at most "
                f"{KUBERNETES_CONFIG_MAX_ITEMS} per instance group"
            )
        return value


class ExistingCluster(Spec):
    """A HyperPod EKS cluster you already run: this stack then manages only what runs in it."""

    eks_cluster_name: shaped_str(
        EKS_NAME,
        "must be an EKS cluster name: 1 to 100 letters, digits, '-' or '_', starting with a "
        "letter or digit",
        max_length=100,
    )
    hyperpod_cluster_arn: shaped_str(
        r"^arn:aws[a-z-]*:sagemaker:[a-z0-9-]+:[0-9]{12}:cluster/[a-z0-9]+$",
        "must be a HyperPod cluster ARN such as "
        "arn:aws:sagemaker:us-west-2:123456789012:cluster/abcdef012345 (its ClusterArn in "
        "`aws sagemaker list-clusters`)",
    )


class AddonVersions(Spec):
    """Pinned EKS add-on versions; unset ones take EKS's default for the Kubernetes version."""

    # The example is a release EKS lists (squareops/terraform-aws-eks-addons#79 pins it).
    vpc_cni: addon_release("v1.19.0-eksbuild.1") | None = None
    kube_proxy: AddonVersion | None = None
    coredns: AddonVersion | None = None
    pod_identity_agent: AddonVersion | None = None

    @field_validator("vpc_cni")
    @classmethod
    def _vpc_cni_floor(cls, value: str | None) -> str | None:
        if value is not None and not at_least(value, VPC_CNI_MINIMUM):
            raise ValueError(f"must be {VPC_CNI_MINIMUM} or later, the oldest HyperPod supports")
        return value


# EKS's "Public endpoint access CIDR ranges per cluster" (Amazon EKS service quotas).
PUBLIC_CIDRS_MAX = 40


def _ipv4_cidr(cidr: str) -> ipaddress.IPv4Network:
    try:
        network = ipaddress.IPv4Network(cidr)
    except ValueError:
        pass
    else:
        if "/" in cidr:
            return network
        # Python reads a bare address as a /32; EKS takes CIDR blocks only.
        raise ValueError(f"{cidr!r} has no prefix length; write {network} for that one address")
    try:
        meant = f"; did you mean {ipaddress.IPv4Network(cidr, strict=False)}?"
    except ValueError:
        meant = ""
    raise ValueError(
        f"{cidr!r} is not an IPv4 CIDR: an address and a prefix length, with no host bits "
        f"set{meant}"
    )


class EndpointAccess(Spec):
    """Who reaches the EKS API: from the VPC (private), and from these CIDRs (public)."""

    public: bool = True
    # Required while public is true, since EKS's default is 0.0.0.0/0 (cluster/checks.py refuses
    # the default; write [0.0.0.0/0] to mean it).
    public_cidrs: list[str] | None = None
    private: bool = True

    @field_validator("public_cidrs")
    @classmethod
    def _cidrs(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and len(value) > PUBLIC_CIDRS_MAX:
            raise ValueError(
                f"lists {len(value)} CIDRs; EKS takes at most {PUBLIC_CIDRS_MAX} (quota "
                "L-93A74D60, not adjustable): merge ranges, or set public: false"
            )
        for cidr in value or []:
            network = _ipv4_cidr(cidr)
            if special := special_range(network, {**DOCUMENTATION, **NEVER_ROUTED}):
                raise ValueError(
                    f"{cidr} lies in {special}, from which no client reaches the API; list the "
                    "egress ranges of your deploy runners and VPN"
                )
            if private := special_range(network, PRIVATE):
                raise ValueError(
                    f"{cidr} lies in {private}, and the public endpoint sees clients' public "
                    "(NAT) addresses, never these; list your runners' and VPN's public egress "
                    "ranges, and reach the API from the VPC through private: true"
                )
        return value


class UpgradePolicy(Spec):
    """What EKS does to the control plane on its version's end-of-standard-support day."""

    # EXTENDED by default: HyperPod supports nothing newer than 1.35, and STANDARD would have
    # EKS move the cluster onto a version HyperPod doesn't list (eks_versions.py).
    support_type: SupportType = "EXTENDED"


class ClusterAutoscaling(Spec):
    """HyperPod's managed Karpenter: GPU groups start empty and grow with pending pods."""

    enabled: bool = False
    # The NodePool's disruption.consolidateAfter (karpenter.py says why an hour); `Never` keeps
    # empty nodes until the group is scaled by hand.
    consolidate_after: str = "1h"

    @field_validator("consolidate_after")
    @classmethod
    def _karpenter_duration(cls, value: str) -> str:
        if not re.fullmatch(CONSOLIDATE_AFTER, value):
            raise ValueError("must be a duration such as 30m, 1h or 1h30m, or Never")
        return value


class ClusterSpec(Spec):
    # Name of the EKS and the HyperPod cluster; hyperpod-dpd-<stack> when unset.
    name: HyperPodName | None = None
    # Checked against HyperPod's and EKS's versions on the day the program runs, for a new
    # cluster only: see components/cluster/kubernetes_version_checks.py.
    kubernetes_version: str = DEFAULT_KUBERNETES_VERSION
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

    @field_validator("kubernetes_version", mode="before")
    @classmethod
    def _quoted_version(cls, value: object) -> object:
        # YAML reads an unquoted 1.30 as the number 1.3: the version written is lost.
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            raise ValueError(
                f'must be quoted text such as "{DEFAULT_KUBERNETES_VERSION}", since YAML reads '
                "an unquoted 1.30 as the number 1.3"
            )
        return value

    @field_validator("kubernetes_version")
    @classmethod
    def _minor_version(cls, value: str) -> str:
        if re.fullmatch(KUBERNETES_MINOR, value):
            return value
        minor = ".".join(value.strip().removeprefix("v").split(".")[:2])
        if not re.fullmatch(KUBERNETES_MINOR, minor):
            minor = DEFAULT_KUBERNETES_VERSION
        raise ValueError(
            f"EKS takes a major.minor version such as {minor!r}, without 'v' or a patch number"
        )


def tiered_storage(cluster: ClusterSpec, l2_backends: Iterable[str | None]) -> bool | None:
    """The HyperPod cluster's tiered storage: as set; else enabled when an endpoint's L2 cache
    uses it, and left unset (None) when none does."""
    if cluster.tiered_storage is None and "tieredstorage" in l2_backends:
        return True
    return cluster.tiered_storage
