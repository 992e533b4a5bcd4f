"""What AWS computes for the resources the program creates: (ID, outputs) from the resource's
name and inputs. Where AWS names a resource after an input (a bucket, an add-on), its ID is
that input; any other value made up here carries the ID, which is how the offline diff reads
it as a reference to the resource (tools/diff/references.py)."""

import json

from tools.render.mocks.account import PARTITION, MockedAccount, hex_id


def _ec2(prefix: str, kind: str):
    def compute(m: MockedAccount, name: str, inputs: dict) -> tuple[str, dict]:
        id_ = f"{prefix}-{hex_id(kind, name)}"
        return id_, {"arn": m.account.arn("ec2", f"{kind}/{id_}"), "ownerId": m.account.id}

    return compute


def _subnet(m: MockedAccount, name: str, inputs: dict) -> tuple[str, dict]:
    id_, outputs = _ec2("subnet", "subnet")(m, name, inputs)
    return id_, {**outputs, "availabilityZone": m.az_name(inputs["availabilityZoneId"])}


def _eip(m: MockedAccount, name: str, inputs: dict) -> tuple[str, dict]:
    digest = bytes.fromhex(hex_id("eip", name, length=4))
    return f"eipalloc-{hex_id('eip', name)}", {"publicIp": "52." + ".".join(map(str, digest[:3]))}


def _bucket(m: MockedAccount, name: str, inputs: dict) -> tuple[str, dict]:
    bucket = inputs.get("bucket") or name
    return bucket, {
        "arn": f"arn:{PARTITION}:s3:::{bucket}",
        "bucketDomainName": f"{bucket}.s3.amazonaws.com",
        "bucketRegionalDomainName": f"{bucket}.s3.{m.region}.amazonaws.com",
        "region": m.region,
    }


def _bucket_setting(m: MockedAccount, name: str, inputs: dict) -> tuple[str, dict]:
    return inputs["bucket"], {}


def _bucket_object(m: MockedAccount, name: str, inputs: dict) -> tuple[str, dict]:
    return inputs["key"], {"etag": hex_id("etag", name, length=32), "versionId": hex_id("v", name)}


def _role(m: MockedAccount, name: str, inputs: dict) -> tuple[str, dict]:
    # Pulumi auto-names a role after its logical name with a random suffix.
    role = inputs.get("name") or f"{name}-{hex_id('role', name, length=7)}"
    return role, {
        "name": role,
        "arn": m.account.arn("iam", f"role/{role}", regional=False),
        "uniqueId": "AROA" + hex_id("role-id", role, length=17).upper(),
    }


def _role_policy(m: MockedAccount, name: str, inputs: dict) -> tuple[str, dict]:
    policy = inputs.get("name") or f"{name}-{hex_id('policy', name, length=7)}"
    return f"{inputs['role']}:{policy}", {"name": policy}


def _eks_addon(m: MockedAccount, name: str, inputs: dict) -> tuple[str, dict]:
    cluster, addon = inputs["clusterName"], inputs["addonName"]
    return f"{cluster}:{addon}", {
        "arn": m.account.arn("eks", f"addon/{cluster}/{addon}/{hex_id(addon, length=8)}"),
        "addonVersion": inputs.get("addonVersion") or "default",
    }


def _hyperpod_cluster(m: MockedAccount, name: str, inputs: dict) -> tuple[str, dict]:
    arn = m.account.arn("sagemaker", f"cluster/{hex_id('hyperpod', name, length=12)}")
    return arn, {"clusterArn": arn, "clusterStatus": "InService"}


def _prometheus_workspace(m: MockedAccount, name: str, inputs: dict) -> tuple[str, dict]:
    digest = hex_id("amp", name, length=32)
    id_ = f"ws-{digest[:8]}-{digest[8:12]}-{digest[12:16]}-{digest[16:20]}-{digest[20:]}"
    return id_, {
        "arn": m.account.arn("aps", f"workspace/{id_}"),
        "prometheusEndpoint": f"https://aps-workspaces.{m.region}.amazonaws.com/workspaces/{id_}/",
    }


def _grafana_workspace(m: MockedAccount, name: str, inputs: dict) -> tuple[str, dict]:
    id_ = f"g-{hex_id('grafana', name, length=10)}"
    return id_, {
        "arn": m.account.arn("grafana", f"/workspaces/{id_}"),
        "endpoint": f"{id_}.grafana-workspace.{m.region}.amazonaws.com",
    }


def _grafana_service_account(m: MockedAccount, name: str, inputs: dict) -> tuple[str, dict]:
    account_id = str(int(hex_id("grafana-sa", name, length=6), 16) % 1000 + 2)
    return f"{inputs['workspaceId']},{account_id}", {"serviceAccountId": account_id}


def _grafana_token(m: MockedAccount, name: str, inputs: dict) -> tuple[str, dict]:
    # Amazon Managed Grafana's service account tokens are Grafana's `glsa_` keys.
    token_id = str(int(hex_id("grafana-token", name, length=6), 16) % 1000 + 1)
    key = f"glsa_{hex_id('grafana-key', name, length=32)}_{hex_id('crc', name, length=8)}"
    workspace, account = inputs["workspaceId"], inputs["serviceAccountId"]
    return f"{workspace},{account},{token_id}", {
        "serviceAccountTokenId": token_id,
        "key": key,
    }


def _eks_cluster(m: MockedAccount, name: str, inputs: dict) -> tuple[str, dict]:
    """pulumi-eks's remote component: its outputs, with references to what it creates."""
    cluster_name = inputs.get("name") or name
    # Its ID, which the API endpoint and the OIDC issuer carry, as every value made up here does.
    issuer_id = hex_id("eks", name, length=32).upper()
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
    return issuer_id, {
        "eksCluster": eks_cluster,
        "kubeconfig": kubeconfig,
        "kubeconfigJson": json.dumps(kubeconfig),
        "oidcIssuer": issuer,
        "oidcProviderUrl": f"https://{issuer}",
        "oidcProviderArn": m.account.arn("iam", f"oidc-provider/{issuer}", regional=False),
        "clusterSecurityGroupId": f"sg-{hex_id(name, 'cluster')}",
    }


AWS_RESOURCES = {
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
    "eks:index:Cluster": _eks_cluster,
}
