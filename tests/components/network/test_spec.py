"""The network's settings refused in words, naming the full key."""

import pytest

from tests.stack_changes import cli_refusal, existing_network, gpu_group, refusal, setting
from tests.support import dev_config, dev_with, endpoint_configs, render

REFUSED = [
    ({"network.vpcCidr": "127.0.0.0/16"}, "network.vpcCidr", "loopback"),
    ({"network.vpcCidr": "224.0.0.0/16"}, "network.vpcCidr", "multicast"),
    ({"network.vpcCidr": "169.254.0.0/16"}, "network.vpcCidr", "link-local"),
    (
        {"network.privateSubnetCidrs": {"usw2-az2": "240.0.0.0/20"}},
        "network.privateSubnetCidrs.usw2-az2",
        "reserved",
    ),
]


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_a_range_that_holds_no_host_network_is_refused(changes, key, says):
    assert says in refusal(changes, key)


CLI_REFUSED = {
    "a VPC range that is not one": (
        setting("hyperpod-dpd:network", {**dev_config()["hyperpod-dpd:network"], "vpcCidr": "x"}),
        "hyperpod-dpd:network.vpcCidr: 'x' is not allowed; must be an IPv4 CIDR block such as "
        "10.0.0.0/16",
    ),
    "a VPC range written as a number": (
        setting("hyperpod-dpd:network", {**dev_config()["hyperpod-dpd:network"], "vpcCidr": 5}),
        "hyperpod-dpd:network.vpcCidr: 5 is not allowed; must be an IPv4 CIDR block such as "
        "10.0.0.0/16",
    ),
    "an AZ name where an AZ ID goes": (
        gpu_group(availabilityZoneId="us-west-2b"),
        "hyperpod-dpd:cluster.instanceGroups[0].availabilityZoneId: 'us-west-2b' is not "
        "allowed; must be an AZ ID such as usw2-az2 (the region's short code, -az and a "
        "number; `aws ec2 describe-availability-zones` lists them as ZoneId), not an AZ name "
        "such as us-west-2b",
    ),
    "a VPC's CIDR where its ID goes": (
        existing_network(vpcId="10.0.0.0/16"),
        "hyperpod-dpd:network.existing.vpcId: '10.0.0.0/16' is not allowed; must be a VPC ID: "
        "vpc- and 8 to 17 lowercase hex digits, such as vpc-0123456789abcdef0",
    ),
    "a subnet's name where its ID goes": (
        existing_network(privateSubnetIds={"usw2-az2": "private-a"}),
        "hyperpod-dpd:network.existing.privateSubnetIds.usw2-az2: 'private-a' is not allowed; "
        "must be a subnet ID: subnet- and 8 to 17 lowercase hex digits, such as "
        "subnet-0123456789abcdef0",
    ),
    "a security group's name where its ID goes": (
        existing_network(securityGroupId="default"),
        "hyperpod-dpd:network.existing.securityGroupId: 'default' is not allowed; must be a "
        "security group ID: sg- and 8 to 17 lowercase hex digits, such as sg-0123456789abcdef0",
    ),
}


@pytest.mark.parametrize("case", CLI_REFUSED)
def test_a_refusal_says_what_is_wrong(tmp_path, capsys, case):
    change, line = CLI_REFUSED[case]
    assert cli_refusal(tmp_path, capsys, change) == [line]


@pytest.mark.parametrize("cidr", ["100.64.0.0/16", "172.31.0.0/16"])
def test_private_and_shared_ranges_make_a_vpc(cidr):
    assert endpoint_configs(render(dev_with({"network.vpcCidr": cidr})))
