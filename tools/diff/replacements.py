"""Which input changes replace a resource rather than update it, beyond what the program records.

The program records `replaceOnChanges` where it or the SDK declares them (an
InferenceEndpointConfig's `spec.intelligentRoutingSpec`, aws-native's create-only
properties). Other providers decide at preview time; these are their immutable inputs for the
types this stack creates (Terraform's ForceNew for pulumi-aws; the EKS API for pulumi-eks).

The mocks derive each resource's ID from these inputs and the recorded ones, so that a
replaced resource gets a new ID and the resources that carry it show their own replacements.
"""

from __future__ import annotations

from collections.abc import Iterable

PROVIDER_REPLACES: dict[str, tuple[str, ...]] = {
    "eks:index:Cluster": (
        "name", "vpcId", "subnetIds", "privateSubnetIds", "publicSubnetIds",
        "clusterSecurityGroup", "encryptionConfigKeyArn", "ipFamily",
        "kubernetesServiceIpAddressRange",
    ),
    "aws:ec2/vpc:Vpc": ("cidrBlock",),
    "aws:ec2/subnet:Subnet": ("cidrBlock", "availabilityZoneId", "vpcId"),
    "aws:ec2/securityGroup:SecurityGroup": ("vpcId", "description", "name"),
    "aws:ec2/natGateway:NatGateway": ("allocationId", "subnetId"),
    "aws:ec2/vpcEndpoint:VpcEndpoint": ("vpcId", "serviceName", "vpcEndpointType"),
    "aws:s3/bucket:Bucket": ("bucket",),
    "aws:iam/role:Role": ("name",),
    "aws:iam/rolePolicy:RolePolicy": ("name", "role"),
    "aws:eks/addon:Addon": ("clusterName", "addonName"),
    # Neither can be updated in place (terraform-provider-aws internal/service/grafana).
    "aws:grafana/workspaceServiceAccount:WorkspaceServiceAccount": (
        "workspaceId", "name", "grafanaRole",
    ),
    "aws:grafana/workspaceServiceAccountToken:WorkspaceServiceAccountToken": (
        "workspaceId", "serviceAccountId", "name", "secondsToLive",
    ),
    "kubernetes:helm.sh/v3:Release": ("name", "namespace"),
    # pulumi-kubernetes replaces its provider when the kubeconfig's active cluster changes (or
    # is unknown, as while the cluster is being replaced): Kubernetes has no cluster identity,
    # so that is its heuristic (pulumi-kubernetes provider docs, `clusterIdentifier`).
    "pulumi:providers:kubernetes": ("kubeconfig.clusters",),
}  # fmt: skip


def replacing(type_: str, recorded: Iterable[str], changed_path: str) -> str | None:
    """The replace-triggering input that `changed_path` falls under, if any."""
    for trigger in [*recorded, *PROVIDER_REPLACES.get(type_, ())]:
        if changed_path == trigger or changed_path.startswith((f"{trigger}.", f"{trigger}[")):
            return trigger
    return None


def replacing_when_unknown(type_: str, recorded: Iterable[str], key: str) -> str | None:
    """The replace-triggering input that an unknown top-level input `key` may change, if any:
    the trigger itself, one inside it, or one it lies inside."""
    for trigger in [*recorded, *PROVIDER_REPLACES.get(type_, ())]:
        if replacing(type_, [trigger], key) or trigger.startswith((f"{key}.", f"{key}[")):
            return trigger
    return None
