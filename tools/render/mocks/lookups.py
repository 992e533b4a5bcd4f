"""Invokes of what exists already: the caller's account, an existing VPC, its security groups,
subnets and clusters, answered from the arguments."""

from tools.render.mocks.account import EXISTING_VPC_CIDR, PARTITION, MockedAccount, hex_id


def _caller_identity(m: MockedAccount, args: dict) -> dict:
    return {
        "accountId": m.account.id,
        "arn": f"arn:{PARTITION}:sts::{m.account.id}:assumed-role/deployer/session",
        "userId": "AROADEPLOYER:session",
        "id": m.account.id,
    }


def _partition(m: MockedAccount, args: dict) -> dict:
    return {
        "partition": PARTITION,
        "dnsSuffix": "amazonaws.com",
        "id": PARTITION,
        "reverseDnsPrefix": "com.amazonaws",
    }


def _vpc(m: MockedAccount, args: dict) -> dict:
    vpc_id = args["id"]
    return {
        "id": vpc_id,
        "cidrBlock": EXISTING_VPC_CIDR,
        "arn": m.account.arn("ec2", f"vpc/{vpc_id}"),
    }


def _default_group_rules(group_id: str) -> dict[str, dict]:
    """The two rules AWS puts on a VPC's default security group."""
    return {
        f"sgr-{hex_id(group_id, 'in')}": {
            "isEgress": False,
            "ipProtocol": "-1",
            "fromPort": -1,
            "toPort": -1,
            "referencedSecurityGroupId": group_id,
        },
        f"sgr-{hex_id(group_id, 'out')}": {
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


def _security_group_rules(m: MockedAccount, args: dict) -> dict:
    group_id = _group_of(args)
    rules = _default_group_rules(group_id)
    for rule_id, rule in rules.items():
        m.described_rules[rule_id] = {"securityGroupId": group_id, **rule}
    return {"ids": list(rules), "id": m.region}


def _security_group_rule(m: MockedAccount, args: dict) -> dict:
    rule_id = args["securityGroupRuleId"]
    return {"id": rule_id, "securityGroupRuleId": rule_id, **m.described_rules[rule_id]}


def _eks_cluster_lookup(m: MockedAccount, args: dict) -> dict:
    name = args["name"]
    issuer_id = hex_id(name, length=32).upper()
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


def _subnet_id(zone: str) -> str:
    return f"subnet-{hex_id(zone, length=17)}"


def _hyperpod_cluster_lookup(m: MockedAccount, args: dict) -> dict:
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


def _subnet(m: MockedAccount, args: dict) -> dict:
    zone = next(z for z in m.zones() if _subnet_id(z) == args["id"])
    return {"id": args["id"], "availabilityZoneId": zone, "availabilityZone": m.az_name(zone)}


LOOKUPS = {
    "aws:index/getCallerIdentity:getCallerIdentity": _caller_identity,
    "aws:index/getPartition:getPartition": _partition,
    "aws:ec2/getVpc:getVpc": _vpc,
    "aws:vpc/getSecurityGroupRules:getSecurityGroupRules": _security_group_rules,
    "aws:vpc/getSecurityGroupRule:getSecurityGroupRule": _security_group_rule,
    "aws:eks/getCluster:getCluster": _eks_cluster_lookup,
    "aws-native:sagemaker:getCluster": _hyperpod_cluster_lookup,
    "aws:ec2/getSubnet:getSubnet": _subnet,
}
