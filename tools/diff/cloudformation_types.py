"""Each pulumi-aws type the stack creates, as the CloudFormation resource it corresponds to.

CloudFormation's resource schemas (shipped with cfn-lint) say which properties cannot change
in place (`createOnlyProperties`); this table is how the offline diff reads them for
pulumi-aws, whose input names are its own (`description` is `GroupDescription`). aws-native's
types are CloudFormation's already: their inputs are its properties in camelCase. The
CloudFormation rendering of the stack the tests hand to cfn-lint and checkov
(tests/cloudformation.py) reads `TWINS` too.

pulumi-aws is built on Terraform's AWS provider, whose `ForceNew` is what finally decides; where
it is known to differ from CloudFormation, tools/diff/replacements.py says so.
"""

from __future__ import annotations

# The aws-native types the stack creates.
AWS_NATIVE_TYPES = ("aws-native:sagemaker:Cluster",)
# aws-native's module names, where they differ from CloudFormation's service names.
_AWS_NATIVE_SERVICES = {"sagemaker": "SageMaker"}


def aws_native_type(token: str) -> str:
    """`AWS::SageMaker::Cluster` from `aws-native:sagemaker:Cluster`."""
    _, service, name = token.split(":")
    return f"AWS::{_AWS_NATIVE_SERVICES.get(service, service.upper())}::{name}"


_TAGGED = {"tags": "Tags"}
# pulumi-aws type -> (CloudFormation type, input name -> property name). Every input the stack
# sets is here or in LEFT_OUT (tests/tools/diff/test_create_only.py checks).
TWINS: dict[str, tuple[str, dict[str, str]]] = {
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
    "aws:ec2/internetGateway:InternetGateway": ("AWS::EC2::InternetGateway", {**_TAGGED}),
    "aws:ec2/eip:Eip": ("AWS::EC2::EIP", {"domain": "Domain", **_TAGGED}),
    "aws:ec2/natGateway:NatGateway": (
        "AWS::EC2::NatGateway",
        {"allocationId": "AllocationId", "subnetId": "SubnetId", **_TAGGED},
    ),
    "aws:ec2/routeTable:RouteTable": ("AWS::EC2::RouteTable", {"vpcId": "VpcId", **_TAGGED}),
    "aws:ec2/routeTableAssociation:RouteTableAssociation": (
        "AWS::EC2::SubnetRouteTableAssociation",
        {"routeTableId": "RouteTableId", "subnetId": "SubnetId"},
    ),
    "aws:ec2/vpcEndpoint:VpcEndpoint": (
        "AWS::EC2::VPCEndpoint",
        {"vpcId": "VpcId", "serviceName": "ServiceName", "vpcEndpointType": "VpcEndpointType",
         "routeTableIds": "RouteTableIds"},
    ),
    "aws:s3/bucket:Bucket": ("AWS::S3::Bucket", {"bucket": "BucketName", **_TAGGED}),
    "aws:s3/bucketPolicy:BucketPolicy": (
        "AWS::S3::BucketPolicy", {"bucket": "Bucket", "policy": "PolicyDocument"}
    ),
    "aws:eks/addon:Addon": (
        "AWS::EKS::Addon",
        {"clusterName": "ClusterName", "addonName": "AddonName", "addonVersion": "AddonVersion",
         "serviceAccountRoleArn": "ServiceAccountRoleArn",
         "configurationValues": "ConfigurationValues",
         "resolveConflictsOnCreate": "ResolveConflicts"},
    ),
}  # fmt: skip

# Types the CloudFormation rendering folds into others (a role's inline policy) or leaves out,
# with the same correspondence: the diff reads their create-only properties all the same.
NAME_ONLY_TWINS: dict[str, tuple[str, dict[str, str]]] = {
    "aws:iam/rolePolicy:RolePolicy": (
        "AWS::IAM::RolePolicy",
        {"name": "PolicyName", "role": "RoleName", "policy": "PolicyDocument"},
    ),
    "aws:amp/workspace:Workspace": ("AWS::APS::Workspace", {"alias": "Alias", **_TAGGED}),
    "aws:grafana/workspace:Workspace": (
        "AWS::Grafana::Workspace",
        {"accountAccessType": "AccountAccessType",
         "authenticationProviders": "AuthenticationProviders", "grafanaVersion": "GrafanaVersion",
         "name": "Name", "permissionType": "PermissionType", "roleArn": "RoleArn", **_TAGGED},
    ),
}  # fmt: skip

# Inputs of the types above that the tables leave out, and why none of them replaces.
LEFT_OUT: dict[str, dict[str, str]] = {
    "aws:ec2/internetGateway:InternetGateway": {
        "vpcId": "an AWS::EC2::VPCGatewayAttachment in CloudFormation; Terraform attaches and "
        "detaches the gateway in place",
    },
    "aws:ec2/routeTable:RouteTable": {
        "routes": "AWS::EC2::Route resources in CloudFormation; Terraform updates them in place",
    },
    "aws:ec2/vpcEndpoint:VpcEndpoint": {"tags": "Tags, not create-only"},
    "aws:s3/bucket:Bucket": {"forceDestroy": "pulumi-aws's own, read only when deleting"},
    "aws:eks/addon:Addon": {
        "resolveConflictsOnUpdate": "CloudFormation's ResolveConflicts covers both, not "
        "create-only",
        "podIdentityAssociations": "PodIdentityAssociations, not create-only (left out of the "
        "CloudFormation rendering, whose nested names differ)",
        "tags": "Tags, not create-only",
    },
    "aws:grafana/workspace:Workspace": {
        "configuration": "UpdateWorkspaceConfiguration's document, which CloudFormation spells "
        "as properties of their own (PluginAdminEnabled, ...), none create-only",
    },
}
