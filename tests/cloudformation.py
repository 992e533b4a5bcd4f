"""The AWS resources of a render as a CloudFormation template, for cfn-lint and checkov.

aws-native resources are CloudFormation resources already: their inputs are the CloudFormation
properties in camelCase (`volumeSizeInGb` for `VolumeSizeInGB`), and the provider maps them back
by the resource's schema, as `_cloudformation_names` does with cfn-lint's copy of it. For
pulumi-aws resources whose CloudFormation twin takes the same settings, a table maps the input
names (tools/diff/cloudformation_types.py, which the offline diff reads too). Where pulumi-aws
splits one CloudFormation resource into several, they are folded back:
a bucket takes its encryption, public access block, versioning, logging and ownership; a role
its inline policies and attached managed policies; a route table's routes become AWS::EC2::Route.
pulumi-eks's cluster becomes AWS::EKS::Cluster. Values that reference other resources stay as
the rendered IDs and ARNs.
"""

import json
import re
from collections.abc import Iterable
from typing import Any

from cfnlint.schema import PROVIDER_SCHEMA_MANAGER

from tools.diff.cloudformation_types import TWINS as _TWINS
from tools.diff.cloudformation_types import aws_native_type
from tools.render.mocks.account import ACCOUNT_ID
from tools.render.render import Registration

REGION = "us-west-2"

_JSON_DOCUMENTS = {"AssumeRolePolicyDocument", "PolicyDocument"}


def _branches(schema: dict, root: dict) -> list[dict]:
    """The schema node and the alternatives it offers, with references resolved."""
    if "$ref" in schema:
        schema = root["definitions"][schema["$ref"].rsplit("/", 1)[1]]
    alternatives = schema.get("oneOf", []) + schema.get("anyOf", [])
    return [schema, *(b for alt in alternatives for b in _branches(alt, root))]


def _cloudformation_names(value: Any, schema: dict, root: dict) -> Any:
    """Input names to the schema's property names, matched without regard to case."""
    branches = _branches(schema, root)
    if isinstance(value, list):
        items = next((b["items"] for b in branches if "items" in b), {})
        return [_cloudformation_names(v, items, root) for v in value]
    if not isinstance(value, dict):
        return value
    properties = {k: v for b in branches for k, v in b.get("properties", {}).items()}
    if not properties:
        return value  # a free-form map, such as Kubernetes labels
    by_lower = {name.lower(): name for name in properties}
    out = {}
    for key, item in value.items():
        name = by_lower.get(key.lower(), key)
        out[name] = _cloudformation_names(item, properties.get(name, {}), root)
    return out


def _tags(tags: dict[str, str]) -> list[dict[str, str]]:
    return [{"Key": k, "Value": v} for k, v in tags.items()]


def _twin(type_: str, inputs: dict) -> tuple[str, dict] | None:
    if type_.startswith("aws-native:"):
        cfn_type = aws_native_type(type_)
        schema = PROVIDER_SCHEMA_MANAGER.get_resource_schema(REGION, cfn_type).schema
        return cfn_type, _cloudformation_names(inputs, schema, schema)
    if type_ not in _TWINS:
        return None
    cfn_type, names = _TWINS[type_]
    properties = {}
    for key, value in inputs.items():
        if key not in names:
            continue
        prop = names[key]
        if prop == "Tags":
            value = _tags(value)
        elif prop in _JSON_DOCUMENTS:
            value = json.loads(value)
        properties[prop] = value
    return cfn_type, properties


def _logical_id(resource: Registration) -> str:
    return re.sub(r"[^A-Za-z0-9]", "", resource.name.title()) + resource.type.rsplit(":", 1)[1]


def _encryption(inputs: dict) -> dict:
    rules = []
    for rule in inputs.get("rules", []):
        default = rule.get("applyServerSideEncryptionByDefault", {})
        by_default = {"SSEAlgorithm": default.get("sseAlgorithm")}
        if "kmsMasterKeyId" in default:
            by_default["KMSMasterKeyID"] = default["kmsMasterKeyId"]
        rules.append(
            {
                "ServerSideEncryptionByDefault": by_default,
                "BucketKeyEnabled": rule.get("bucketKeyEnabled", False),
            }
        )
    return {"BucketEncryption": {"ServerSideEncryptionConfiguration": rules}}


# pulumi-aws bucket settings -> the AWS::S3::Bucket properties they are in CloudFormation.
_BUCKET_SETTINGS: dict[str, Any] = {
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": (
        _encryption
    ),
    "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": lambda i: {
        "PublicAccessBlockConfiguration": {
            key[0].upper() + key[1:]: i[key]
            for key in ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls",
                        "restrictPublicBuckets")
            if key in i
        }
    },
    "aws:s3/bucketVersioning:BucketVersioning": lambda i: {
        "VersioningConfiguration": {"Status": i["versioningConfiguration"]["status"]}
    },
    "aws:s3/bucketLogging:BucketLogging": lambda i: {
        "LoggingConfiguration": {
            "DestinationBucketName": i["targetBucket"], "LogFilePrefix": i.get("targetPrefix", "")
        }
    },
    "aws:s3/bucketOwnershipControls:BucketOwnershipControls": lambda i: {
        "OwnershipControls": {"Rules": [{"ObjectOwnership": i["rule"]["objectOwnership"]}]}
    },
}  # fmt: skip
_ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"
_ROLE_ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
_ROUTE_TABLE = "aws:ec2/routeTable:RouteTable"
_EKS_COMPONENT = "eks:index:Cluster"
_ROUTE_TARGETS = {"gatewayId": "GatewayId", "natGatewayId": "NatGatewayId"}


def _eks_cluster(inputs: dict, ids: dict[str, str]) -> dict:
    """pulumi-eks's inputs as the cluster it creates. Its service role is made inside the
    component, so its ARN is not in the render: the template names the role by pattern."""
    access = {
        "EndpointPublicAccess": inputs.get("endpointPublicAccess", True),
        "EndpointPrivateAccess": inputs.get("endpointPrivateAccess", False),
        "SubnetIds": inputs.get("privateSubnetIds", []),
        "SecurityGroupIds": [ids[inputs["clusterSecurityGroup"]]],
    }
    if "publicAccessCidrs" in inputs:
        access["PublicAccessCidrs"] = inputs["publicAccessCidrs"]
    return {
        "Name": inputs["name"],
        "Version": inputs["version"],
        "RoleArn": f"arn:aws:iam::{ACCOUNT_ID}:role/{inputs['name']}-eksRole",
        "ResourcesVpcConfig": access,
        "Logging": {
            "ClusterLogging": {
                "EnabledTypes": [{"Type": t} for t in inputs.get("enabledClusterLogTypes", [])]
            }
        },
        "AccessConfig": {"AuthenticationMode": inputs["authenticationMode"]},
    }


def _routes(table: Registration, logical_id: str) -> dict[str, dict]:
    out = {}
    for n, route in enumerate(table.inputs.get("routes", [])):
        properties = {"RouteTableId": table.id, "DestinationCidrBlock": route["cidrBlock"]}
        properties |= {_ROUTE_TARGETS[k]: v for k, v in route.items() if k in _ROUTE_TARGETS}
        out[f"{logical_id}Route{n}"] = {"Type": "AWS::EC2::Route", "Properties": properties}
    return out


def _folds_into(resource: Registration, key: str, by_urn: dict[str, str]) -> str | None:
    """The logical ID of the resource that `resource`'s input `key` comes from."""
    targets = [by_urn[urn] for urn in resource.property_dependencies.get(key, []) if urn in by_urn]
    return targets[0] if targets else None


def template(resources: Iterable[Registration]) -> dict:
    resources = list(resources)
    ids = {r.urn: r.id for r in resources}
    out: dict[str, dict] = {}
    for resource in resources:
        logical_id = _logical_id(resource)
        if resource.type == _EKS_COMPONENT:
            properties = _eks_cluster(resource.inputs, ids)
            out[logical_id] = {"Type": "AWS::EKS::Cluster", "Properties": properties}
            continue
        twin = _twin(resource.type, resource.inputs)
        if twin is not None:
            cfn_type, properties = twin
            out[logical_id] = {"Type": cfn_type, "Properties": properties}
        if resource.type == _ROUTE_TABLE:
            out |= _routes(resource, logical_id)
    # What pulumi-aws keeps apart, folded into the bucket or role it belongs to.
    by_urn = {r.urn: _logical_id(r) for r in resources if _logical_id(r) in out}
    for resource in resources:
        if resource.type in _BUCKET_SETTINGS:
            bucket = _folds_into(resource, "bucket", by_urn)
            if bucket is not None and out[bucket]["Type"] == "AWS::S3::Bucket":
                out[bucket]["Properties"] |= _BUCKET_SETTINGS[resource.type](resource.inputs)
        elif resource.type in (_ROLE_POLICY, _ROLE_ATTACHMENT):
            role = out[_folds_into(resource, "role", by_urn)]["Properties"]
            if resource.type == _ROLE_POLICY:
                document = json.loads(resource.inputs["policy"])
                policy = {"PolicyName": resource.inputs["name"], "PolicyDocument": document}
                role.setdefault("Policies", []).append(policy)
            else:
                role.setdefault("ManagedPolicyArns", []).append(resource.inputs["policyArn"])
    return {"AWSTemplateFormatVersion": "2010-09-09", "Resources": out}
