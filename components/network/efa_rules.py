"""The rules of the security group shared by EKS and every HyperPod instance group. EFA traffic
must leave and enter the group itself: a missing self egress rule is the leading cause of
failing EFA health checks on HyperPod."""

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

ALL_PROTOCOLS = "-1"
SELF = "self"
ANYWHERE = "0.0.0.0/0"


@dataclass(frozen=True)
class EfaRule:
    direction: Literal["ingress", "egress"]
    protocol: str
    from_port: int | None
    to_port: int | None
    # SELF, or an IPv4 CIDR.
    peer: str
    description: str

    @property
    def name(self) -> str:
        ports = f"{self.from_port}-{self.to_port}" if self.from_port is not None else "all"
        peer = "self" if self.peer == SELF else self.peer.replace("/", "_")
        return f"{self.direction}-{self.protocol.replace(ALL_PROTOCOLS, 'any')}-{ports}-{peer}"


# What EFA itself needs; the policy pack holds every security group of a stack to these.
SELF_RULES = (
    EfaRule("ingress", ALL_PROTOCOLS, None, None, SELF, "All traffic within the group (EFA)"),
    EfaRule("egress", ALL_PROTOCOLS, None, None, SELF, "All traffic within the group (EFA)"),
)


def efa_rules(vpc_cidr: str) -> list[EfaRule]:
    return [
        *SELF_RULES,
        EfaRule("egress", ALL_PROTOCOLS, None, None, ANYWHERE, "Images, AWS APIs"),
        EfaRule("ingress", "tcp", 988, 988, SELF, "FSx for Lustre"),
        EfaRule("ingress", "tcp", 1018, 1023, SELF, "FSx for Lustre"),
        EfaRule("ingress", "tcp", 443, 443, vpc_cidr, "HTTPS from the VPC"),
    ]


@dataclass(frozen=True)
class ExistingRule:
    """A rule already on a security group, as EC2 describes it or a stack declares it."""

    is_egress: bool
    protocol: str
    from_port: int | None
    to_port: int | None
    cidr_ipv4: str | None
    referenced_group_id: str | None


def _covers(existing: ExistingRule, rule: EfaRule, group_id: str) -> bool:
    same_direction = existing.is_egress == (rule.direction == "egress")
    if rule.peer == SELF:
        same_peer = existing.referenced_group_id == group_id
    else:
        same_peer = existing.cidr_ipv4 == rule.peer
    if not (same_direction and same_peer):
        return False
    if existing.protocol == ALL_PROTOCOLS:
        return True
    return (
        existing.protocol == rule.protocol
        and None not in (existing.from_port, existing.to_port, rule.from_port, rule.to_port)
        and existing.from_port <= rule.from_port
        and rule.to_port <= existing.to_port
    )


def _missing(
    required: Sequence[EfaRule], existing: Sequence[ExistingRule], group_id: str
) -> list[EfaRule]:
    return [rule for rule in required if not any(_covers(e, rule, group_id) for e in existing)]


def missing_efa_rules(
    existing: Sequence[ExistingRule], group_id: str, vpc_cidr: str
) -> list[EfaRule]:
    return _missing(efa_rules(vpc_cidr), existing, group_id)


def missing_self_rules(existing: Sequence[ExistingRule], group_id: str) -> list[EfaRule]:
    """The self rules (all traffic from and to the group itself) no rule on the group allows."""
    return _missing(SELF_RULES, existing, group_id)
