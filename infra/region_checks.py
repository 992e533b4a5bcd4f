"""Rules that hold the stack to its region and account: what HyperPod offers there, AZ IDs of
that region, and ARNs of that region and account. A real `pulumi up` would meet them only when
the HyperPod cluster's creation fails, after the VPC, EKS and the dependencies chart are up."""

from collections.abc import Iterator

from components.core.regions import (
    AZ_ID_PREFIXES,
    HYPERPOD_INSTANCE_TYPES,
    KNOWN_REGIONS,
    arn_parts,
    az_id_region,
    regions_offering,
)
from components.network.spec import is_az_id, is_az_name
from infra.config_errors import config_key
from infra.stack_settings import StackSettings

REGION_KEY = "aws:region"


def _offered_in(instance_type: str) -> str:
    regions = regions_offering(instance_type)
    if not regions:
        return "no region offers it for HyperPod"
    return f"the regions that offer it: {', '.join(regions)}"


def _instance_types(stack: StackSettings) -> Iterator[tuple[tuple[str | int, ...], str]]:
    for i, group in enumerate(stack.cluster.instance_groups):
        yield ("cluster", "instanceGroups", i, "instanceType"), group.instance_type
    for i, endpoint in enumerate(stack.endpoints):
        yield ("endpoints", i, "instanceType"), endpoint.instance_type


def az_ids(stack: StackSettings) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(key path, AZ ID) of every setting that names an AZ by ID."""
    network = stack.network
    if network is not None:
        for i, az in enumerate(network.availability_zone_ids):
            yield ("network", "availabilityZoneIds", i), az
        for az in network.private_subnet_cidrs:
            yield ("network", "privateSubnetCidrs", az), az
        if network.existing is not None:
            for az in network.existing.private_subnet_ids:
                yield ("network", "existing", "privateSubnetIds", az), az
    for i, group in enumerate(stack.cluster.instance_groups):
        yield ("cluster", "instanceGroups", i, "availabilityZoneId"), group.availability_zone_id
    for key, zone in topology_zones(stack):
        if is_az_id(zone):
            yield key, zone


def topology_zones(stack: StackSettings) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(key path, AZ ID or name) of every endpoint's topologySpec.availabilityZone."""
    for i, endpoint in enumerate(stack.endpoints):
        topology = endpoint.topology_spec
        if topology is not None and topology.availability_zone is not None:
            yield ("endpoints", i, "topologySpec", "availabilityZone"), topology.availability_zone


def arns(stack: StackSettings) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """(key path, ARN) of every setting that names a regional resource by ARN."""
    if stack.cluster.existing is not None:
        yield (
            ("cluster", "existing", "hyperpodClusterArn"),
            stack.cluster.existing.hyperpod_cluster_arn,
        )
    for i, group in enumerate(stack.cluster.instance_groups):
        if group.training_plan_arn:
            yield ("cluster", "instanceGroups", i, "trainingPlanArn"), group.training_plan_arn
    if stack.buckets.kms_key_arn:
        yield ("buckets", "kmsKeyArn"), stack.buckets.kms_key_arn
    if stack.observability.prometheus_workspace_arn:
        yield (
            ("observability", "prometheusWorkspaceArn"),
            stack.observability.prometheus_workspace_arn,
        )
    for i, endpoint in enumerate(stack.endpoints):
        certificate = endpoint.tls_config.custom_certificate_config if endpoint.tls_config else None
        if certificate is not None:
            yield (
                ("endpoints", i, "tlsConfig", "customCertificateConfig", "acmArn"),
                certificate.acm_arn,
            )


def region_problems(region: str, stack: StackSettings) -> list[str]:
    offered = ", ".join(HYPERPOD_INSTANCE_TYPES)
    if region not in KNOWN_REGIONS:
        return [f"{REGION_KEY}: {region!r} is not an AWS region; HyperPod is offered in {offered}"]
    if region not in HYPERPOD_INSTANCE_TYPES:
        return [f"{REGION_KEY}: HyperPod is not offered in {region}; it is offered in {offered}"]
    problems = [
        f"{config_key(*path)}: {kind!r} is not offered for HyperPod in {region}; "
        f"{_offered_in(kind)}"
        for path, kind in _instance_types(stack)
        if kind not in HYPERPOD_INSTANCE_TYPES[region]
    ]
    for path, az in az_ids(stack):
        owner = az_id_region(az)
        if owner != region:
            where = (
                f"is an AZ ID of {owner}"
                if owner
                else "is not an AZ ID of any region HyperPod is offered in"
            )
            problems.append(
                f"{config_key(*path)}: {az!r} {where}; the stack deploys to {region}, whose AZ "
                f"IDs are {AZ_ID_PREFIXES[region]}-az<n>"
            )
    # AZ names are the Region's name and a letter.
    problems += [
        f"{config_key(*path)}: {zone!r} is an AZ name of {zone[:-1]}; the stack deploys to "
        f"{region}, whose AZ names are {region}<letter>"
        for path, zone in topology_zones(stack)
        if is_az_name(zone) and zone[:-1] != region
    ]
    return problems + _misplaced_arns(stack, "region", region)


def _misplaced_arns(stack: StackSettings, part: str, expected: str) -> list[str]:
    """ARNs whose `part` (region or account) is not the stack's."""
    return [
        f"{config_key(*path)}: {arn!r} is in {part} {found}; it must be in the {part} the "
        f"stack deploys to, {expected}"
        for path, arn in arns(stack)
        if (found := arn_parts(arn)[part]) != expected
    ]


def account_problems(account_id: str, stack: StackSettings) -> list[str]:
    return _misplaced_arns(stack, "account", account_id)
