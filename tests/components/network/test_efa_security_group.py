"""EfaSecurityGroup under mocks: a new group with every rule, or an existing one completed."""

from components.network.efa_security_group import EfaSecurityGroup, EfaSecurityGroupArgs
from tests.support import run_component

VPC_CIDR = "10.0.0.0/16"


def group(existing: str | None = None):
    args = EfaSecurityGroupArgs(
        vpc_id="vpc-0123456789abcdef0",
        vpc_cidr=VPC_CIDR,
        cluster_name="dpd",
        existing_group_id=existing,
    )
    return run_component(lambda: EfaSecurityGroup("efa", args))


def rules(result, direction: str) -> list[dict]:
    kind = "Ingress" if direction == "ingress" else "Egress"
    return [r.inputs for r in result.resources if r.type.endswith(f"SecurityGroup{kind}Rule")]


def test_the_group_has_no_inline_rules():
    (sg,) = [r for r in group().resources if r.type == "aws:ec2/securityGroup:SecurityGroup"]
    assert "ingress" not in sg.inputs and "egress" not in sg.inputs


def test_all_traffic_from_and_to_itself_in_both_directions():
    result = group()
    (sg,) = [r for r in result.resources if r.type == "aws:ec2/securityGroup:SecurityGroup"]
    for direction in ("ingress", "egress"):
        assert {
            "securityGroupId": sg.id,
            "referencedSecurityGroupId": sg.id,
            "ipProtocol": "-1",
            "description": "All traffic within the group (EFA)",
        } in rules(result, direction)


def test_egress_anywhere_fsx_and_https_from_the_vpc():
    result = group()
    assert any(
        r["ipProtocol"] == "-1" and r.get("cidrIpv4") == "0.0.0.0/0"
        for r in rules(result, "egress")
    )
    tcp = {
        (r["fromPort"], r["toPort"], r.get("cidrIpv4", "self"))
        for r in rules(result, "ingress")
        if r["ipProtocol"] == "tcp"
    }
    assert tcp == {(988, 988, "self"), (1018, 1023, "self"), (443, 443, VPC_CIDR)}


def test_an_existing_group_gets_only_the_rules_it_lacks():
    # The mocked account's group has a default group's rules: all from itself, all out.
    result = group(existing="sg-0123456789abcdef0")
    assert not [r for r in result.resources if r.type == "aws:ec2/securityGroup:SecurityGroup"]
    assert rules(result, "egress") == [
        {
            "securityGroupId": "sg-0123456789abcdef0",
            "ipProtocol": "-1",
            "referencedSecurityGroupId": "sg-0123456789abcdef0",
            "description": "All traffic within the group (EFA)",
        },
    ]
    assert [(r["fromPort"], r["cidrIpv4"]) for r in rules(result, "ingress")] == [(443, VPC_CIDR)]
