"""EfaSecurityGroup: the one security group EKS and every HyperPod instance group share. Its
rules are separate resources, so rules others add (EKS, the load balancer controller) are
neither fought over nor removed."""

from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from components.network.efa_rules import SELF, EfaRule, ExistingRule, efa_rules, missing_efa_rules


@dataclass(frozen=True)
class EfaSecurityGroupArgs:
    vpc_id: pulumi.Input[str]
    vpc_cidr: str
    cluster_name: str
    # Adopt this group and add only the EFA rules it lacks.
    existing_group_id: str | None = None


def _existing_rules(group_id: str) -> list[ExistingRule]:
    ids = aws.vpc.get_security_group_rules(filters=[{"name": "group-id", "values": [group_id]}]).ids
    rules = [aws.vpc.get_security_group_rule(security_group_rule_id=rule_id) for rule_id in ids]
    # EC2 describes "all ports" as -1.
    return [
        ExistingRule(
            is_egress=rule.is_egress,
            protocol=rule.ip_protocol,
            from_port=None if rule.from_port in (None, -1) else rule.from_port,
            to_port=None if rule.to_port in (None, -1) else rule.to_port,
            cidr_ipv4=rule.cidr_ipv4 or None,
            referenced_group_id=rule.referenced_security_group_id or None,
        )
        for rule in rules
    ]


class EfaSecurityGroup(pulumi.ComponentResource):
    def __init__(
        self, name: str, args: EfaSecurityGroupArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("hyperpod-dpd:network:EfaSecurityGroup", name, None, opts)
        if args.existing_group_id is not None:
            self.group = aws.ec2.SecurityGroup.get(
                name, args.existing_group_id, opts=pulumi.ResourceOptions(parent=self)
            )
            rules = missing_efa_rules(
                _existing_rules(args.existing_group_id), args.existing_group_id, args.vpc_cidr
            )
        else:
            self.group = aws.ec2.SecurityGroup(
                name,
                vpc_id=args.vpc_id,
                description=f"EKS and HyperPod nodes of {args.cluster_name}, with EFA",
                tags={"Name": f"{args.cluster_name}-efa"},
                opts=pulumi.ResourceOptions(parent=self),
            )
            rules = efa_rules(args.vpc_cidr)
        self.rules = [self._rule(name, rule) for rule in rules]
        self.group_id = self.group.id
        self.register_outputs({"groupId": self.group_id})

    def _rule(self, name: str, rule: EfaRule) -> pulumi.CustomResource:
        peer = (
            {"referenced_security_group_id": self.group.id}
            if rule.peer == SELF
            else {"cidr_ipv4": rule.peer}
        )
        ports = {"from_port": rule.from_port, "to_port": rule.to_port}
        kind = (
            aws.vpc.SecurityGroupIngressRule
            if rule.direction == "ingress"
            else aws.vpc.SecurityGroupEgressRule
        )
        return kind(
            f"{name}-{rule.name}",
            security_group_id=self.group.id,
            ip_protocol=rule.protocol,
            description=rule.description,
            **(ports if rule.from_port is not None else {}),
            **peer,
            opts=pulumi.ResourceOptions(parent=self),
        )
