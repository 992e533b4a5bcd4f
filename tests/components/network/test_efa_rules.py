from components.network.efa_rules import (
    SELF,
    ExistingRule,
    efa_rules,
    missing_efa_rules,
    missing_self_rules,
)

GROUP = "sg-0123456789abcdef0"
VPC = "10.0.0.0/16"


def test_the_group_allows_all_traffic_to_and_from_itself():
    rules = {(r.direction, r.protocol, r.peer) for r in efa_rules(VPC)}
    assert ("ingress", "-1", SELF) in rules
    assert ("egress", "-1", SELF) in rules
    assert ("egress", "-1", "0.0.0.0/0") in rules


def test_fsx_ports_from_itself_and_https_from_the_vpc():
    tcp = {(r.from_port, r.to_port, r.peer) for r in efa_rules(VPC) if r.protocol == "tcp"}
    assert tcp == {(988, 988, SELF), (1018, 1023, SELF), (443, 443, VPC)}
    assert all(r.direction == "ingress" for r in efa_rules(VPC) if r.protocol == "tcp")


def test_rule_names_are_unique():
    names = [r.name for r in efa_rules(VPC)]
    assert len(set(names)) == len(names)


def rule(is_egress, protocol="-1", ports=(None, None), cidr=None, group=None):
    return ExistingRule(is_egress, protocol, *ports, cidr, group)


def test_a_default_security_group_lacks_self_egress_and_https():
    default = [rule(False, group=GROUP), rule(True, cidr="0.0.0.0/0")]
    missing = {(r.direction, r.protocol, r.peer) for r in missing_efa_rules(default, GROUP, VPC)}
    # All traffic from itself already covers the FSx ports.
    assert missing == {("egress", "-1", SELF), ("ingress", "tcp", VPC)}


def test_a_group_with_every_rule_needs_nothing():
    complete = [
        rule(False, group=GROUP),
        rule(True, group=GROUP),
        rule(True, cidr="0.0.0.0/0"),
        rule(False, "tcp", (443, 443), cidr=VPC),
    ]
    assert missing_efa_rules(complete, GROUP, VPC) == []


def test_a_narrower_rule_does_not_cover_a_wider_one():
    partial = [rule(False, "tcp", (988, 988), group=GROUP), rule(True, group="sg-other")]
    missing = {r.name for r in missing_efa_rules(partial, GROUP, VPC)}
    assert "ingress-any-all-self" in missing
    assert "egress-any-all-self" in missing
    assert "ingress-tcp-988-988-self" not in missing
    assert "ingress-tcp-1018-1023-self" in missing


def test_self_rules_are_the_efa_rules_for_all_traffic_within_the_group():
    assert missing_self_rules([], GROUP) == [
        r for r in efa_rules(VPC) if r.peer == SELF and r.protocol == "-1"
    ]


def test_a_group_without_self_egress_lacks_exactly_that_self_rule():
    ingress_only = [rule(False, group=GROUP), rule(True, cidr="0.0.0.0/0")]
    assert [r.name for r in missing_self_rules(ingress_only, GROUP)] == ["egress-any-all-self"]


def test_self_rules_need_all_protocols_and_this_very_group():
    elsewhere = [rule(False, "tcp", (0, 65535), group=GROUP), rule(True, group="sg-other")]
    missing = [r.name for r in missing_self_rules(elsewhere, GROUP)]
    assert missing == ["ingress-any-all-self", "egress-any-all-self"]


def test_a_group_with_both_self_rules_lacks_none_of_them():
    assert missing_self_rules([rule(False, group=GROUP), rule(True, group=GROUP)], GROUP) == []
