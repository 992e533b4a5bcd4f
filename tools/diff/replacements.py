"""Which input changes replace a resource rather than update it, beyond what the program records.

The program records `replaceOnChanges` where it or the SDK declares them (aws-native's
create-only properties). Other providers decide at preview time, so this module says what they
decide for the types this stack creates:
- every AWS type with a CloudFormation twin: the inputs behind its `createOnlyProperties`, as
  cfn-lint's schemas give them (`create_only.json`, derived by scripts/derive_create_only.py),
  less where Terraform's AWS provider, which pulumi-aws is built on, updates in place;
- the types with no CloudFormation twin, by hand, each with its source;
- every Kubernetes object: its name and namespace.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from tools.diff.property_paths import covers, overlaps

CREATE_ONLY_PATH = Path(__file__).with_name("create_only.json")
_CREATE_ONLY: dict[str, tuple[str, ...]] = {
    token: tuple(entry["replaces"])
    for token, entry in json.loads(CREATE_ONLY_PATH.read_text())["types"].items()
}

# Create-only in CloudFormation, updated in place by Terraform's AWS provider:
# aws_route_table_association's route_table_id has no ForceNew (it calls
# ReplaceRouteTableAssociation; terraform-provider-aws internal/service/ec2/
# vpc_route_table_association.go).
TERRAFORM_IN_PLACE: dict[str, tuple[str, ...]] = {
    "aws:ec2/routeTableAssociation:RouteTableAssociation": ("routeTableId",),
}

# The types with no CloudFormation twin of their own.
HAND_REPLACES: dict[str, tuple[str, ...]] = {
    # pulumi-eks's component: the EKS API cannot change a cluster's name, networking or
    # encryption (Terraform's aws_eks_cluster marks them ForceNew; pulumi-eks passes them on).
    "eks:index:Cluster": (
        "name", "vpcId", "subnetIds", "privateSubnetIds", "publicSubnetIds",
        "clusterSecurityGroup", "encryptionConfigKeyArn", "ipFamily",
        "kubernetesServiceIpAddressRange",
    ),
    # Parts of a bucket in pulumi-aws, its properties in CloudFormation: each names its bucket
    # once ("bucket - (Required, Forces new resource)", Terraform's aws_s3_bucket_* docs).
    "aws:s3/bucketLogging:BucketLogging": ("bucket",),
    "aws:s3/bucketOwnershipControls:BucketOwnershipControls": ("bucket",),
    "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": ("bucket",),
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": (
        "bucket",
    ),
    "aws:s3/bucketVersioning:BucketVersioning": ("bucket",),
    # An object is its bucket and key (Terraform's aws_s3_object: both force a new resource).
    "aws:s3/bucketObjectv2:BucketObjectv2": ("bucket", "key"),
    # A managed policy's attachment is the pair (aws_iam_role_policy_attachment: both ForceNew).
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": ("role", "policyArn"),
    # A tag is its resource and key; only its value updates (aws_ec2_tag).
    "aws:ec2/tag:Tag": ("resourceId", "key"),
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

# "Changing the identity of the resource always causes a replacement" (pulumi-kubernetes,
# provider/pkg/provider/provider.go, Diff): a Kubernetes object's name and namespace.
KUBERNETES_REPLACES = ("metadata.name", "metadata.namespace")


def replace_triggers(type_: str) -> tuple[str, ...]:
    """The inputs of `type_` whose change replaces it, whatever the program records."""
    if type_.startswith("kubernetes:") and type_ not in HAND_REPLACES:
        return KUBERNETES_REPLACES
    in_place = TERRAFORM_IN_PLACE.get(type_, ())
    derived = tuple(t for t in _CREATE_ONLY.get(type_, ()) if t not in in_place)
    return derived + HAND_REPLACES.get(type_, ())


def replacing(type_: str, recorded: Iterable[str], changed_path: str) -> str | None:
    """The replace-triggering input that `changed_path` falls under, if any."""
    for trigger in [*recorded, *replace_triggers(type_)]:
        if covers(trigger, changed_path):
            return trigger
    return None


def replacing_when_unknown(type_: str, recorded: Iterable[str], key: str) -> str | None:
    """The replace-triggering input that an unknown top-level input `key` may change, if any:
    the trigger itself, one inside it, or one it lies inside."""
    for trigger in [*recorded, *replace_triggers(type_)]:
        if overlaps(trigger, key):
            return trigger
    return None
