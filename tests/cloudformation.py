"""The AWS resources of a render as a CloudFormation template, for CloudFormation's own linters.

aws-native resources are CloudFormation resources already: their inputs are the CloudFormation
properties in camelCase (`volumeSizeInGb` for `VolumeSizeInGB`), and the provider maps them back
by the resource's schema, as `_cloudformation_names` does with cfn-lint's copy of it. For
pulumi-aws resources whose CloudFormation twin takes the same settings, a table maps the input
names. Values that reference other resources stay as the rendered IDs and ARNs.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from cfnlint.schema import PROVIDER_SCHEMA_MANAGER

from infra.offline.render import Registration

REGION = "us-west-2"

_TAGGED = {"tags": "Tags"}
# pulumi-aws type -> (CloudFormation type, input name -> property name).
_TWINS: dict[str, tuple[str, dict[str, str]]] = {
    "aws:ec2/vpc:Vpc": (
        "AWS::EC2::VPC",
        {"cidrBlock": "CidrBlock", "enableDnsSupport": "EnableDnsSupport",
         "enableDnsHostnames": "EnableDnsHostnames", **_TAGGED},
    ),
    "aws:ec2/subnet:Subnet": (
        "AWS::EC2::Subnet",
        {"vpcId": "VpcId", "cidrBlock": "CidrBlock", "availabilityZoneId": "AvailabilityZoneId",
         "mapPublicIpOnLaunch": "MapPublicIpOnLaunch", **_TAGGED},
    ),
    "aws:ec2/securityGroup:SecurityGroup": (
        "AWS::EC2::SecurityGroup",
        {"description": "GroupDescription", "vpcId": "VpcId", **_TAGGED},
    ),
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": (
        "AWS::EC2::SecurityGroupIngress",
        {"securityGroupId": "GroupId", "ipProtocol": "IpProtocol", "fromPort": "FromPort",
         "toPort": "ToPort", "cidrIpv4": "CidrIp", "description": "Description",
         "referencedSecurityGroupId": "SourceSecurityGroupId"},
    ),
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": (
        "AWS::EC2::SecurityGroupEgress",
        {"securityGroupId": "GroupId", "ipProtocol": "IpProtocol", "fromPort": "FromPort",
         "toPort": "ToPort", "cidrIpv4": "CidrIp", "description": "Description",
         "referencedSecurityGroupId": "DestinationSecurityGroupId"},
    ),
    "aws:iam/role:Role": (
        "AWS::IAM::Role",
        {"assumeRolePolicy": "AssumeRolePolicyDocument", "description": "Description",
         "name": "RoleName"},
    ),
    "aws:iam/rolePolicy:RolePolicy": (
        "AWS::IAM::RolePolicy",
        {"policy": "PolicyDocument", "role": "RoleName", "name": "PolicyName"},
    ),
    "aws:eks/addon:Addon": (
        "AWS::EKS::Addon",
        {"clusterName": "ClusterName", "addonName": "AddonName", "addonVersion": "AddonVersion",
         "serviceAccountRoleArn": "ServiceAccountRoleArn",
         "configurationValues": "ConfigurationValues",
         "resolveConflictsOnCreate": "ResolveConflicts"},
    ),
}  # fmt: skip
_JSON_DOCUMENTS = {"AssumeRolePolicyDocument", "PolicyDocument"}
# aws-native's module names, where they differ from CloudFormation's service names.
_CFN_SERVICE = {"sagemaker": "SageMaker"}


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
        _, service, name = type_.split(":")
        cfn_type = f"AWS::{_CFN_SERVICE.get(service, service.upper())}::{name}"
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


def template(resources: Iterable[Registration]) -> dict:
    out: dict[str, dict] = {}
    for resource in resources:
        twin = _twin(resource.type, resource.inputs)
        if twin is not None:
            cfn_type, properties = twin
            out[_logical_id(resource)] = {"Type": cfn_type, "Properties": properties}
    return {"AWSTemplateFormatVersion": "2010-09-09", "Resources": out}
