"""Pulumi mocks that answer the way AWS and Kubernetes would, for the offline render and tests.

Each resource echoes its inputs and adds the outputs its provider computes, with plausible
values derived from the inputs: IDs shaped like AWS's (`vpc-…`, `sg-…`), ARNs in account
123456789012 (or the account the render is asked to play: `render --account`), Kubernetes IDs
`namespace/name`. Validators run over the render then see
realistic values, never None.

Lookups of things that already exist answer like a typical account: an existing VPC is
10.20.0.0/16, an existing security group carries a default VPC group's two rules. What the
live preflight asks (quotas, AZ IDs, an existing cluster's versions and status) comes from
`ACCOUNT`, which a test may replace to play an account that refuses the stack.
"""

from __future__ import annotations

import hashlib
import json
import string
import threading
from dataclasses import dataclass, field

import pulumi
from pulumi.runtime import rpc
from pulumi.runtime.mocks import MockMonitor

from components.core.aws_account import AwsAccount
from components.core.regions import AZ_ID_PREFIXES
from components.observability.versions import DEFAULT_ADDON_VERSION as DEFAULT_OBSERVABILITY_ADDON
from components.operator.versions import DEFAULT_ADDON_VERSION
from tools.diff.replacements import replace_triggers

ACCOUNT_ID = "123456789012"
PARTITION = "aws"
EXISTING_VPC_CIDR = "10.20.0.0/16"


@dataclass(frozen=True)
class AccountAnswers:
    """What the mocked account answers the live preflight."""

    # Every "<instance type> for cluster usage" quota, unless `quotas` names it.
    cluster_usage_quota: float = 16.0
    quotas: dict[str, float] = field(default_factory=dict)
    # The region's AZ IDs are its prefix with -az1 up to this.
    availability_zones: int = 6
    eks_version: str = "1.33"
    eks_support_type: str = "EXTENDED"
    hyperpod_status: str = "InService"
    # The AZs (by number, az1 = 1) of an existing HyperPod cluster's subnets.
    hyperpod_subnet_zones: tuple[int, ...] = (1, 2)
    inference_addon_version: str = DEFAULT_ADDON_VERSION
    # The newest observability add-on EKS offers for the cluster's Kubernetes version.
    newest_observability_addon: str = DEFAULT_OBSERVABILITY_ADDON


# Read when a CloudMocks is made: replace it before rendering to change the answers.
ACCOUNT = AccountAnswers()


@dataclass(frozen=True)
class WireRegistration:
    """A registration as the engine receives it. The mock API hands new_resource neither the
    resource options nor the IDs of the resources its inputs refer to; the wire form has both."""

    # References to resources are {signature, urn, id} here.
    inputs: dict
    replace_on_changes: tuple[str, ...]


def _hex(*parts: object, length: int = 17) -> str:
    return hashlib.sha256("/".join(map(str, parts)).encode()).hexdigest()[:length]


def _kubernetes_id(name: str, inputs: dict) -> str:
    metadata = inputs.get("metadata") or {}
    object_name = metadata.get("name", name)
    namespace = metadata.get("namespace")
    return f"{namespace}/{object_name}" if namespace else object_name


class CloudMocks(pulumi.runtime.Mocks):
    def __init__(self, region: str, account_id: str = ACCOUNT_ID) -> None:
        self.region = region
        self.account = AwsAccount(account_id, PARTITION, region)
        self.answers = ACCOUNT
        # Resources that exist without being registered (those inside remote components),
        # so that references to them resolve. The monitor looks resources up here.
        self.registry: dict[str, MockMonitor.ResourceRegistration] = {}
        # Security group rules the account has described, by rule ID.
        self.described_rules: dict[str, dict] = {}
        # The inputs of each explicit provider, by its ID: Grafana's resources live at the
        # address of the provider that creates them.
        self.providers: dict[str, dict] = {}
        # The registration under way on the wire, which the monitor sets. Per thread: the
        # engine registers resources from several threads at once.
        self._registering = threading.local()

    @property
    def registering(self) -> WireRegistration | None:
        return getattr(self._registering, "value", None)

    @registering.setter
    def registering(self, registration: WireRegistration | None) -> None:
        self._registering.value = registration

    def arn(self, service: str, resource: str, *, regional: bool = True) -> str:
        return (
            f"arn:{PARTITION}:{service}:{self.region if regional else ''}:{self.account.id}:"
            f"{resource}"
        )

    def az_name(self, az_id: str) -> str:
        """The AZ an AZ ID maps to in this mocked account: az1 -> a, az2 -> b, ... The live
        preflight has refused the IDs the account does not list."""
        return self.region + string.ascii_lowercase[int(az_id.rsplit("-az", 1)[1]) - 1]

    def zones(self) -> dict[str, str]:
        """The region's AZ names by AZ ID, as many as the account answers it has."""
        prefix = AZ_ID_PREFIXES.get(self.region, self.region)
        ids = [f"{prefix}-az{n + 1}" for n in range(self.answers.availability_zones)]
        return {az_id: self.az_name(az_id) for az_id in ids}

    def reference(self, parent_type: str, type_: str, name: str, id_: str, state: dict) -> dict:
        """A resource reference on the wire, to a resource created inside a remote component."""
        stack, project = pulumi.get_stack(), pulumi.get_project()
        urn = f"urn:pulumi:{stack}::{project}::{parent_type}${type_}::{name}"
        self.registry[urn] = MockMonitor.ResourceRegistration(urn, id_, state)
        return {rpc._special_sig_key: rpc._special_resource_sig, "urn": urn, "id": id_}

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict]:
        inputs, name, typ = dict(args.inputs), args.name, args.typ
        if typ.startswith("pulumi:providers:"):
            self.providers[f"{name}-provider"] = inputs
            return f"{name}-provider", inputs
        if typ.startswith("kubernetes:"):
            return _kubernetes_id(name, inputs), inputs
        wire = self.registering or WireRegistration(inputs, ())
        identity = _identity(typ, name, wire.inputs, wire.replace_on_changes)
        compute = RESOURCES.get(typ)
        if typ in GRAFANA_RESOURCES:
            resource_id, outputs = GRAFANA_RESOURCES[typ](self._grafana_url(args), inputs)
        elif compute:
            resource_id, outputs = compute(self, name, identity, inputs)
        else:
            resource_id, outputs = "", {}
        return resource_id or f"{name}-{_hex(typ, identity, length=8)}", {**inputs, **outputs}

    def _grafana_url(self, args: pulumi.runtime.MockResourceArgs) -> str:
        """The address of the Grafana a resource is created in: its provider's `url`."""
        provider_id = (args.provider or "").rsplit("::", 1)[-1]
        return str(self.providers.get(provider_id, {}).get("url", "")).rstrip("/")

    def call(self, args: pulumi.runtime.MockCallArgs) -> dict:
        answer = INVOKES.get(args.token)
        if answer is None:
            raise NotImplementedError(f"no mocked answer for {args.token}")
        return answer(self, args.args)


def _input_at(inputs: dict, path: str) -> object:
    """The input at a dotted path (`orchestrator.eks`), or None."""
    value: object = inputs
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _identity(typ: str, name: str, inputs: dict, recorded: tuple[str, ...]) -> str:
    """What a resource's mocked ID derives from: its logical name and the inputs that force its
    replacement. As in AWS, a replaced resource gets a new ID, so every input that carries that
    ID changes too, and the offline diff shows the replacements it cascades into."""
    triggers = sorted({*recorded, *replace_triggers(typ)})
    immutable = {path: _input_at(inputs, path) for path in triggers}
    return f"{name}/{json.dumps(immutable, sort_keys=True)}" if triggers else name


# Resources: (id, computed outputs) from the identity (see _identity) and the inputs. Where
# AWS names a resource after an input (a bucket, an add-on), its ID is that input.


def _ec2(prefix: str, kind: str):
    def compute(m: CloudMocks, name: str, identity: str, inputs: dict) -> tuple[str, dict]:
        id_ = f"{prefix}-{_hex(kind, identity)}"
        return id_, {"arn": m.account.arn("ec2", f"{kind}/{id_}"), "ownerId": m.account.id}

    return compute


def _subnet(m: CloudMocks, name: str, identity: str, inputs: dict) -> tuple[str, dict]:
    id_, outputs = _ec2("subnet", "subnet")(m, name, identity, inputs)
    return id_, {**outputs, "availabilityZone": m.az_name(inputs["availabilityZoneId"])}


def _eip(m: CloudMocks, name: str, identity: str, inputs: dict) -> tuple[str, dict]:
    digest = bytes.fromhex(_hex("eip", name, length=4))
    return f"eipalloc-{_hex('eip', name)}", {"publicIp": "52." + ".".join(map(str, digest[:3]))}


def _bucket(m: CloudMocks, name: str, identity: str, inputs: dict) -> tuple[str, dict]:
    bucket = inputs.get("bucket") or name
    return bucket, {
        "arn": f"arn:{PARTITION}:s3:::{bucket}",
        "bucketDomainName": f"{bucket}.s3.amazonaws.com",
        "bucketRegionalDomainName": f"{bucket}.s3.{m.region}.amazonaws.com",
        "region": m.region,
    }


def _bucket_setting(m: CloudMocks, name: str, identity: str, inputs: dict) -> tuple[str, dict]:
    return inputs["bucket"], {}


def _bucket_object(m: CloudMocks, name: str, identity: str, inputs: dict) -> tuple[str, dict]:
    return inputs["key"], {"etag": _hex("etag", name, length=32), "versionId": _hex("v", name)}


def _role(m: CloudMocks, name: str, identity: str, inputs: dict) -> tuple[str, dict]:
    # Pulumi auto-names a role after its logical name with a random suffix.
    role = inputs.get("name") or f"{name}-{_hex('role', identity, length=7)}"
    return role, {
        "name": role,
        "arn": m.account.arn("iam", f"role/{role}", regional=False),
        "uniqueId": "AROA" + _hex("role-id", role, length=17).upper(),
    }


def _role_policy(m: CloudMocks, name: str, identity: str, inputs: dict) -> tuple[str, dict]:
    policy = inputs.get("name") or f"{name}-{_hex('policy', name, length=7)}"
    return f"{inputs['role']}:{policy}", {"name": policy}


def _eks_addon(m: CloudMocks, name: str, identity: str, inputs: dict) -> tuple[str, dict]:
    cluster, addon = inputs["clusterName"], inputs["addonName"]
    return f"{cluster}:{addon}", {
        "arn": m.account.arn("eks", f"addon/{cluster}/{addon}/{_hex(addon, length=8)}"),
        "addonVersion": inputs.get("addonVersion") or "default",
    }


def _hyperpod_cluster(m: CloudMocks, name: str, identity: str, inputs: dict) -> tuple[str, dict]:
    arn = m.account.arn("sagemaker", f"cluster/{_hex('hyperpod', identity, length=12)}")
    return arn, {"clusterArn": arn, "clusterStatus": "InService"}


def _prometheus_workspace(
    m: CloudMocks, name: str, identity: str, inputs: dict
) -> tuple[str, dict]:
    digest = _hex("amp", identity, length=32)
    id_ = f"ws-{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:]}"
    return id_, {
        "arn": m.account.arn("aps", f"workspace/{id_}"),
        "prometheusEndpoint": f"https://aps-workspaces.{m.region}.amazonaws.com/workspaces/{id_}/",
    }


def _grafana_workspace(m: CloudMocks, name: str, identity: str, inputs: dict) -> tuple[str, dict]:
    id_ = f"g-{_hex('grafana', identity, length=10)}"
    return id_, {
        "arn": m.account.arn("grafana", f"/workspaces/{id_}"),
        "endpoint": f"{id_}.grafana-workspace.{m.region}.amazonaws.com",
    }


def _grafana_service_account(
    m: CloudMocks, name: str, identity: str, inputs: dict
) -> tuple[str, dict]:
    account_id = str(int(_hex("grafana-sa", identity, length=6), 16) % 1000 + 2)
    return f"{inputs['workspaceId']},{account_id}", {"serviceAccountId": account_id}


def _grafana_token(m: CloudMocks, name: str, identity: str, inputs: dict) -> tuple[str, dict]:
    # Amazon Managed Grafana's service account tokens are Grafana's `glsa_` keys.
    token_id = str(int(_hex("grafana-token", identity, length=6), 16) % 1000 + 1)
    key = f"glsa_{_hex('grafana-key', identity, length=32)}_{_hex('crc', identity, length=8)}"
    workspace, account = inputs["workspaceId"], inputs["serviceAccountId"]
    return f"{workspace},{account},{token_id}", {
        "serviceAccountTokenId": token_id,
        "key": key,
    }


# Grafana's resources, from the address of the Grafana they are created in and their inputs.
# IDs are `<org>:<uid>` as the Grafana provider writes them; organization 1 is the default.


def _grafana_data_source(url: str, inputs: dict) -> tuple[str, dict]:
    uid = inputs.get("uid") or _hex("datasource", inputs.get("name"), length=14)
    return f"1:{uid}", {"uid": uid}


def _grafana_folder(url: str, inputs: dict) -> tuple[str, dict]:
    uid = inputs.get("uid") or _hex("folder", inputs.get("title"), length=14)
    return f"1:{uid}", {"uid": uid, "url": f"{url}/dashboards/f/{uid}/"}


def _grafana_dashboard(url: str, inputs: dict) -> tuple[str, dict]:
    model = json.loads(inputs["configJson"])
    uid = model.get("uid") or _hex("dashboard", model.get("title"), length=14)
    slug = "-".join(str(model.get("title", "")).lower().split())
    return f"1:{uid}", {
        "uid": uid,
        "url": f"{url}/d/{uid}/{slug}",
        "dashboardId": int(_hex("dashboard-id", uid, length=4), 16),
        "version": 1,
    }


def _grafana_rule_group(url: str, inputs: dict) -> tuple[str, dict]:
    return f"1:{inputs['folderUid']}:{inputs['name']}", {}


GRAFANA_RESOURCES = {
    "grafana:oss/dataSource:DataSource": _grafana_data_source,
    "grafana:oss/folder:Folder": _grafana_folder,
    "grafana:oss/dashboard:Dashboard": _grafana_dashboard,
    "grafana:alerting/ruleGroup:RuleGroup": _grafana_rule_group,
}


def _helm_release(m: CloudMocks, name: str, identity: str, inputs: dict) -> tuple[str, dict]:
    status = {
        "name": inputs.get("name"),
        "namespace": inputs.get("namespace"),
        "status": "deployed",
        "revision": 1,
    }
    return f"{inputs.get('namespace')}/{inputs.get('name')}", {"status": status}


def _eks_cluster(m: CloudMocks, name: str, identity: str, inputs: dict) -> tuple[str, dict]:
    """pulumi-eks's remote component: its outputs, with references to what it creates."""
    cluster_name = inputs.get("name") or name
    # A cluster created again has a new API endpoint and OIDC issuer.
    issuer_id = _hex(identity, length=32).upper()
    issuer = f"oidc.eks.{m.region}.amazonaws.com/id/{issuer_id}"
    endpoint = f"https://{issuer_id}.gr7.{m.region}.eks.amazonaws.com"
    cluster = {
        "name": cluster_name,
        "arn": m.account.arn("eks", f"cluster/{cluster_name}"),
        "endpoint": endpoint,
        "version": inputs.get("version"),
        "identities": [{"oidcs": [{"issuer": f"https://{issuer}"}]}],
    }
    kubeconfig = {
        "apiVersion": "v1",
        "clusters": [{"name": cluster_name, "cluster": {"server": endpoint}}],
        "current-context": cluster_name,
    }
    eks_cluster = m.reference(
        "eks:index:Cluster", "aws:eks/cluster:Cluster", f"{name}-eksCluster", cluster_name, cluster
    )
    return f"{cluster_name}-component", {
        "eksCluster": eks_cluster,
        "kubeconfig": kubeconfig,
        "kubeconfigJson": json.dumps(kubeconfig),
        "oidcIssuer": issuer,
        "oidcProviderUrl": f"https://{issuer}",
        "oidcProviderArn": m.account.arn("iam", f"oidc-provider/{issuer}", regional=False),
        "clusterSecurityGroupId": f"sg-{_hex(identity, 'cluster')}",
    }


RESOURCES = {
    "aws:ec2/vpc:Vpc": _ec2("vpc", "vpc"),
    "aws:ec2/internetGateway:InternetGateway": _ec2("igw", "internet-gateway"),
    "aws:ec2/routeTable:RouteTable": _ec2("rtb", "route-table"),
    "aws:ec2/routeTableAssociation:RouteTableAssociation": _ec2("rtbassoc", "route-table-assoc"),
    "aws:ec2/subnet:Subnet": _subnet,
    "aws:ec2/eip:Eip": _eip,
    "aws:ec2/natGateway:NatGateway": _ec2("nat", "natgateway"),
    "aws:ec2/vpcEndpoint:VpcEndpoint": _ec2("vpce", "vpc-endpoint"),
    "aws:ec2/securityGroup:SecurityGroup": _ec2("sg", "security-group"),
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": _ec2("sgr", "sg-rule"),
    "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule": _ec2("sgr", "sg-rule"),
    "aws:s3/bucket:Bucket": _bucket,
    "aws:s3/bucketOwnershipControls:BucketOwnershipControls": _bucket_setting,
    "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": _bucket_setting,
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": (
        _bucket_setting
    ),
    "aws:s3/bucketPolicy:BucketPolicy": _bucket_setting,
    "aws:s3/bucketVersioning:BucketVersioning": _bucket_setting,
    "aws:s3/bucketLogging:BucketLogging": _bucket_setting,
    "aws:s3/bucketObjectv2:BucketObjectv2": _bucket_object,
    "aws:iam/role:Role": _role,
    "aws:iam/rolePolicy:RolePolicy": _role_policy,
    "aws:eks/addon:Addon": _eks_addon,
    "aws-native:sagemaker:Cluster": _hyperpod_cluster,
    "aws:amp/workspace:Workspace": _prometheus_workspace,
    "aws:grafana/workspace:Workspace": _grafana_workspace,
    "aws:grafana/workspaceServiceAccount:WorkspaceServiceAccount": _grafana_service_account,
    "aws:grafana/workspaceServiceAccountToken:WorkspaceServiceAccountToken": _grafana_token,
    "kubernetes:helm.sh/v3:Release": _helm_release,
    "eks:index:Cluster": _eks_cluster,
}


# Invokes: the answer from the arguments.


def _caller_identity(m: CloudMocks, args: dict) -> dict:
    return {
        "accountId": m.account.id,
        "arn": f"arn:{PARTITION}:sts::{m.account.id}:assumed-role/deployer/session",
        "userId": "AROADEPLOYER:session",
        "id": m.account.id,
    }


def _partition(m: CloudMocks, args: dict) -> dict:
    return {
        "partition": PARTITION,
        "dnsSuffix": "amazonaws.com",
        "id": PARTITION,
        "reverseDnsPrefix": "com.amazonaws",
    }


def _vpc(m: CloudMocks, args: dict) -> dict:
    vpc_id = args["id"]
    return {
        "id": vpc_id,
        "cidrBlock": EXISTING_VPC_CIDR,
        "arn": m.account.arn("ec2", f"vpc/{vpc_id}"),
    }


def _default_group_rules(group_id: str) -> dict[str, dict]:
    """The two rules AWS puts on a VPC's default security group."""
    return {
        f"sgr-{_hex(group_id, 'in')}": {
            "isEgress": False,
            "ipProtocol": "-1",
            "fromPort": -1,
            "toPort": -1,
            "referencedSecurityGroupId": group_id,
        },
        f"sgr-{_hex(group_id, 'out')}": {
            "isEgress": True,
            "ipProtocol": "-1",
            "fromPort": -1,
            "toPort": -1,
            "cidrIpv4": "0.0.0.0/0",
        },
    }


def _group_of(args: dict) -> str:
    (group_filter,) = [f for f in args["filters"] if f["name"] == "group-id"]
    return group_filter["values"][0]


def _security_group_rules(m: CloudMocks, args: dict) -> dict:
    group_id = _group_of(args)
    rules = _default_group_rules(group_id)
    for rule_id, rule in rules.items():
        m.described_rules[rule_id] = {"securityGroupId": group_id, **rule}
    return {"ids": list(rules), "id": m.region}


def _security_group_rule(m: CloudMocks, args: dict) -> dict:
    rule_id = args["securityGroupRuleId"]
    return {"id": rule_id, "securityGroupRuleId": rule_id, **m.described_rules[rule_id]}


def _eks_cluster_lookup(m: CloudMocks, args: dict) -> dict:
    name = args["name"]
    issuer_id = _hex(name, length=32).upper()
    return {
        "id": name,
        "name": name,
        "arn": m.account.arn("eks", f"cluster/{name}"),
        "endpoint": f"https://{issuer_id}.gr7.{m.region}.eks.amazonaws.com",
        "certificateAuthorities": [{"data": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg=="}],
        "identities": [
            {"oidcs": [{"issuer": f"https://oidc.eks.{m.region}.amazonaws.com/id/{issuer_id}"}]}
        ],
        "version": m.answers.eks_version,
        "upgradePolicies": [{"supportType": m.answers.eks_support_type}],
    }


# Invokes of the live preflight (infra/preflight.py).


def _service_quota(m: CloudMocks, args: dict) -> dict:
    name = args["quotaName"]
    code = f"L-{_hex('quota', name, length=8).upper()}"
    value = m.answers.quotas.get(name, m.answers.cluster_usage_quota)
    return {
        "id": m.account.arn("servicequotas", f"{args['serviceCode']}/{code}"),
        "arn": m.account.arn("servicequotas", f"{args['serviceCode']}/{code}"),
        "quotaCode": code,
        "quotaName": name,
        "serviceCode": args["serviceCode"],
        "serviceName": "Amazon SageMaker",
        "value": value,
        "defaultValue": 0.0,
        "adjustable": True,
        "globalQuota": False,
        "usageMetrics": [],
    }


def _availability_zones(m: CloudMocks, args: dict) -> dict:
    zones = m.zones()
    return {
        "id": m.region,
        "names": list(zones.values()),
        "zoneIds": list(zones),
        "groupNames": [m.region] * len(zones),
    }


def _availability_zone(m: CloudMocks, args: dict) -> dict:
    zone_id = args["zoneId"]
    return {"id": zone_id, "zoneId": zone_id, "name": m.az_name(zone_id), "region": m.region}


def _eks_addon_lookup(m: CloudMocks, args: dict) -> dict:
    cluster, addon = args["clusterName"], args["addonName"]
    return {
        "id": f"{cluster}:{addon}",
        "addonName": addon,
        "clusterName": cluster,
        "addonVersion": m.answers.inference_addon_version,
        "arn": m.account.arn("eks", f"addon/{cluster}/{addon}/{_hex(addon, length=8)}"),
        "configurationValues": "",
        "serviceAccountRoleArn": "",
        "podIdentityAssociations": [],
        "tags": {},
    }


def _addon_version(m: CloudMocks, args: dict) -> dict:
    addon, kubernetes = args["addonName"], args["kubernetesVersion"]
    return {
        "id": addon,
        "addonName": addon,
        "kubernetesVersion": kubernetes,
        "mostRecent": args.get("mostRecent", False),
        "version": m.answers.newest_observability_addon,
    }


def _subnet_id(zone: str) -> str:
    return f"subnet-{_hex(zone, length=17)}"


def _hyperpod_cluster_lookup(m: CloudMocks, args: dict) -> dict:
    zones = list(m.zones())
    subnets = [_subnet_id(zones[n - 1]) for n in m.answers.hyperpod_subnet_zones]
    return {
        "clusterArn": args["clusterArn"],
        "clusterStatus": m.answers.hyperpod_status,
        "instanceGroups": [
            {"instanceGroupName": f"group-{i}", "overrideVpcConfig": {"subnets": [subnet]}}
            for i, subnet in enumerate(subnets)
        ],
    }


def _subnet(m: CloudMocks, args: dict) -> dict:
    zone = next(z for z in m.zones() if _subnet_id(z) == args["id"])
    return {"id": args["id"], "availabilityZoneId": zone, "availabilityZone": m.az_name(zone)}


INVOKES = {
    "aws:index/getCallerIdentity:getCallerIdentity": _caller_identity,
    "aws:index/getPartition:getPartition": _partition,
    "aws:ec2/getVpc:getVpc": _vpc,
    "aws:vpc/getSecurityGroupRules:getSecurityGroupRules": _security_group_rules,
    "aws:vpc/getSecurityGroupRule:getSecurityGroupRule": _security_group_rule,
    "aws:eks/getCluster:getCluster": _eks_cluster_lookup,
    "aws:servicequotas/getServiceQuota:getServiceQuota": _service_quota,
    "aws:index/getAvailabilityZones:getAvailabilityZones": _availability_zones,
    "aws:index/getAvailabilityZone:getAvailabilityZone": _availability_zone,
    "aws:eks/getAddon:getAddon": _eks_addon_lookup,
    "aws:eks/getAddonVersion:getAddonVersion": _addon_version,
    "aws-native:sagemaker:getCluster": _hyperpod_cluster_lookup,
    "aws:ec2/getSubnet:getSubnet": _subnet,
}
