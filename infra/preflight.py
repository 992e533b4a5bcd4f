"""Live preflight: what the account says about the stack, asked before any resource exists.

Synchronous invokes return before the program registers anything, so a refusal stops even a
preview; the offline render answers them from its mocks. Asked: the Service Quotas
"<instance type> for cluster usage" (HyperPod prerequisites, "Instance Quotas"; a training plan
brings its own capacity); the region's AZ IDs; the newest observability add-on EKS offers for the
Kubernetes version (no public table lists them); and of an existing cluster, its version, status
and installed inference add-on, held to the floors (its calendar place only warns).
"""

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date

import pulumi_aws as aws
import pulumi_aws_native as aws_native

from components.cluster.eks_versions import SupportType
from components.cluster.kubernetes_version_checks import check_existing_cluster_version
from components.cluster.kubernetes_versions import minor_version, unsupported_kubernetes
from components.network.spec import is_az_id, network_azs
from components.observability.versions import ADDON_NAME as OBSERVABILITY_ADDON
from components.operator.versions import (
    ADDON_NAME,
    ADDON_OPERATOR_VERSIONS,
    VersionError,
    at_least,
    operator_version,
    release,
)
from infra.config_errors import config_key, finding_line
from infra.region_checks import az_ids, topology_zones
from infra.stack_settings import StackSettings

QUOTA_SERVICE = "sagemaker"
# The status HyperPod reports once its nodes can take workloads.
IN_SERVICE = "InService"


@dataclass(frozen=True)
class Preflight:
    """What the account refuses, and what it only warns about, one line each naming the key."""

    problems: list[str]
    warnings: list[str] = field(default_factory=list)


def _quota_problems(stack: StackSettings, region: str) -> list[str]:
    groups_by_type: dict[str, list[int]] = defaultdict(list)
    for i, group in enumerate(stack.cluster.instance_groups):
        if group.training_plan_arn is None:
            groups_by_type[group.instance_type].append(i)
    problems = []
    for instance_type, indices in groups_by_type.items():
        groups = [stack.cluster.instance_groups[i] for i in indices]
        needed = sum(group.instance_count for group in groups)
        name = f"{instance_type} for cluster usage"
        quota = aws.servicequotas.get_service_quota(service_code=QUOTA_SERVICE, quota_name=name)
        if quota.value >= needed:
            continue
        problems.append(
            f"{config_key('cluster', 'instanceGroups', indices[0], 'instanceCount')}: the "
            f"groups on {instance_type} ({', '.join(g.name for g in groups)}) need {needed}, "
            f"but the account's Service Quotas value of {QUOTA_SERVICE} {name!r} "
            f"({quota.quota_code}) in {region} is {quota.value:g}, shared by all its HyperPod "
            "clusters; request more in the Service Quotas console or with `aws service-quotas "
            f"request-service-quota-increase --service-code {QUOTA_SERVICE} --quota-code "
            f"{quota.quota_code} --desired-value {needed} --region {region}`, or give the "
            "groups a trainingPlanArn"
        )
    return problems


def _az_problems(stack: StackSettings, region: str) -> list[str]:
    """AZ IDs that do not exist for this account, and an endpoint's AZ given by name that is not
    one of the stack's AZs in this account, whose names map to zones of their own (the same name
    is another zone in another account)."""
    found = aws.get_availability_zones()
    zones = found.zone_ids
    problems = [
        f"{config_key(*path)}: {az!r} does not exist in {region} for this account; its AZ "
        f"IDs are {', '.join(zones)}"
        for path, az in az_ids(stack)
        if az not in zones
    ]
    ids_by_name = dict(zip(found.names, zones, strict=True))
    assert stack.network is not None
    stack_zones = network_azs(stack.network)
    for path, zone in topology_zones(stack):
        if is_az_id(zone):
            continue
        known = ", ".join(f"{name} ({az})" for name, az in ids_by_name.items())
        if zone not in ids_by_name:
            problems.append(
                f"{config_key(*path)}: {zone!r} is not an AZ of this account; its AZs are {known}"
            )
        elif ids_by_name[zone] not in stack_zones:
            problems.append(
                f"{config_key(*path)}: {zone!r} is {ids_by_name[zone]} in this account, which "
                f"is not one of the stack's AZs ({', '.join(stack_zones)}); name one of them"
            )
    return problems


def _observability_addon_problems(stack: StackSettings, kubernetes_version: str) -> list[str]:
    spec = stack.observability
    if not spec.enabled:
        return []
    kubernetes = minor_version(kubernetes_version)
    newest = aws.eks.get_addon_version(
        addon_name=OBSERVABILITY_ADDON, kubernetes_version=kubernetes, most_recent=True
    ).version
    if at_least(newest, spec.addon_version):
        return []
    return [
        f"{config_key('observability', 'addonVersion')}: {spec.addon_version} is not offered "
        f"for Kubernetes {kubernetes}; the newest {OBSERVABILITY_ADDON} EKS offers for it is "
        f"{newest} (`aws eks describe-addon-versions --addon-name {OBSERVABILITY_ADDON} "
        f"--kubernetes-version {kubernetes}` lists them)"
    ]


def _support_type(eks: aws.eks.GetClusterResult) -> SupportType:
    policies = eks.upgrade_policies or []
    return "STANDARD" if policies and policies[0].support_type == "STANDARD" else "EXTENDED"


def _existing_cluster(stack: StackSettings, today: date) -> Preflight:
    existing = stack.cluster.existing
    assert existing is not None
    problems, warnings = [], []
    eks = aws.eks.get_cluster(name=existing.eks_cluster_name)
    # The offline render's account answers no version: what it would say is left to
    # `pulumi preview`, never made up.
    if eks.version:
        warnings = [
            finding_line(config_key(found.field), found)
            for found in check_existing_cluster_version(
                existing.eks_cluster_name, eks.version, today, _support_type(eks)
            )
        ]
        refused = unsupported_kubernetes(eks.version)
        if refused:
            problems.append(
                f"{config_key('cluster', 'existing', 'eksClusterName')}: "
                f"{existing.eks_cluster_name!r} runs Kubernetes {eks.version}, which is not "
                f"allowed; {refused}"
            )
        problems += _observability_addon_problems(stack, eks.version)
    hyperpod = aws_native.sagemaker.get_cluster(cluster_arn=existing.hyperpod_cluster_arn)
    status = str(getattr(hyperpod.cluster_status, "value", hyperpod.cluster_status))
    if status != IN_SERVICE:
        problems.append(
            f"{config_key('cluster', 'existing', 'hyperpodClusterArn')}: "
            f"{existing.hyperpod_cluster_arn!r} is {status}; endpoints need it {IN_SERVICE}"
        )
    if stack.operator.installed is not None:
        problems += _installed_addon_problems(stack)
    problems += _existing_zone_problems(stack, hyperpod)
    return Preflight(problems, warnings)


def _existing_zone_problems(
    stack: StackSettings, hyperpod: aws_native.sagemaker.GetClusterResult
) -> list[str]:
    """An endpoint's AZ on a cluster the stack doesn't build is an AZ of this account, and one
    its nodes are in when every group names its subnets (`OverrideVpcConfig`; the cluster's
    own VpcConfig is not in what DescribeCluster gives CloudFormation to read)."""
    zoned = list(topology_zones(stack))
    if not zoned:
        return []
    found = aws.get_availability_zones()
    names = dict(zip(found.zone_ids, found.names, strict=True))
    held = "is not an AZ of this account"
    groups = hyperpod.instance_groups or []
    if groups and all(g.override_vpc_config is not None for g in groups):
        subnets = {s for g in groups for s in g.override_vpc_config.subnets}
        zones = {aws.ec2.get_subnet(id=subnet).availability_zone_id for subnet in sorted(subnets)}
        names = {az: names[az] for az in sorted(zones)}
        held = "holds no node of the existing HyperPod cluster"
    known = ", ".join(f"{name} ({az})" for az, name in names.items())
    return [
        f"{config_key(*path)}: {zone!r} {held}; name one of {known}"
        for path, zone in zoned
        if zone not in names and zone not in names.values()
    ]


def _installed_addon_problems(stack: StackSettings) -> list[str]:
    """The add-on the cluster runs, through the floor and against what the stack says it runs."""
    existing, installed = stack.cluster.existing, stack.operator.installed
    assert existing is not None and installed is not None
    found = aws.eks.get_addon(addon_name=ADDON_NAME, cluster_name=existing.eks_cluster_name)
    # A declared operator version names the operator of add-ons newer than the table only.
    newer = release(found.addon_version) not in ADDON_OPERATOR_VERSIONS
    try:
        running = operator_version(
            found.addon_version, installed.operator_version if newer else None
        )
    except VersionError as refused:
        return [
            f"{config_key('operator', 'installed')}: the {ADDON_NAME} add-on in "
            f"{existing.eks_cluster_name!r} is {found.addon_version}, which is not allowed; "
            f"{refused}"
        ]
    configured = {
        "addonVersion": (installed.addon_version, found.addon_version),
        "operatorVersion": (installed.operator_version, running),
    }
    return [
        f"{config_key('operator', 'installed', key)}: {value!r} is not what "
        f"{existing.eks_cluster_name!r} runs; its {ADDON_NAME} add-on is "
        f"{found.addon_version} (operator {running})"
        for key, (value, real) in configured.items()
        if value not in (None, real)
    ]


def preflight(stack: StackSettings, region: str, today: date) -> Preflight:
    if stack.cluster.existing is not None:
        return _existing_cluster(stack, today)
    return Preflight(
        _quota_problems(stack, region)
        + _az_problems(stack, region)
        + _observability_addon_problems(stack, stack.cluster.kubernetes_version)
    )
