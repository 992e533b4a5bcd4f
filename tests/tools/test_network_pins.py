"""`hyperpod-dpd pin-network`: a deployed stack's subnets, read from its state, become the
settings that keep them."""

import json

from tests.support import dev_config, render
from tools.cli import main
from tools.network_pins import pins

NETWORK = "urn:pulumi:dev::hyperpod-dpd::hyperpod-dpd:network:Network$aws:ec2/subnet:Subnet::"


def subnet(role: str, az: str, cidr: str) -> dict:
    return {
        "urn": f"{NETWORK}network-{role}-{az}",
        "type": "aws:ec2/subnet:Subnet",
        "id": f"subnet-{role}-{az}",
        "inputs": {"availabilityZoneId": az, "cidrBlock": cidr},
    }


# The dev stack as the earlier plan deployed it: subnets sized for its nodes, EKS on the
# private ones.
STATE = {
    "version": 3,
    "deployment": {
        "resources": [
            subnet("private", "usw2-az2", "10.0.0.0/21"),
            subnet("private", "usw2-az3", "10.0.9.0/24"),
            subnet("public", "usw2-az2", "10.0.8.0/24"),
            subnet("public", "usw2-az3", "10.0.10.0/24"),
            {
                "urn": "urn:pulumi:dev::hyperpod-dpd::hyperpod-dpd:eks:EksCluster$eks:index:"
                "Cluster$aws:eks/cluster:Cluster::eks-eksCluster",
                "type": "aws:eks/cluster:Cluster",
                "id": "hyperpod-dpd-dev",
                "inputs": {
                    "vpcConfig": {
                        "subnetIds": ["subnet-private-usw2-az2", "subnet-private-usw2-az3"]
                    }
                },
            },
        ]
    },
}


def test_prints_the_config_commands_that_pin_every_subnet_and_the_control_plane(tmp_path, capsys):
    state = tmp_path / "state.json"
    state.write_text(json.dumps(STATE))
    assert main(["pin-network", "--stack", "dev", "--state", str(state)]) == 0
    set_path = "pulumi config set --stack dev --path"
    assert capsys.readouterr().out.splitlines() == [
        f"""{set_path} 'network.privateSubnetCidrs["usw2-az2"]' 10.0.0.0/21""",
        f"""{set_path} 'network.privateSubnetCidrs["usw2-az3"]' 10.0.9.0/24""",
        f"""{set_path} 'network.publicSubnetCidrs["usw2-az2"]' 10.0.8.0/24""",
        f"""{set_path} 'network.publicSubnetCidrs["usw2-az3"]' 10.0.10.0/24""",
        f"{set_path} 'network.controlPlaneAzIds[0]' usw2-az2",
        f"{set_path} 'network.controlPlaneAzIds[1]' usw2-az3",
        f"{set_path} network.controlPlaneOnNodeSubnets true",
    ]


def test_the_pinned_stack_renders_the_same_subnets_with_eks_on_them():
    config = dev_config()
    config["hyperpod-dpd:network"] |= pins(STATE)
    resources = render(config).resources
    subnets = {r.name: r for r in resources if r.type == "aws:ec2/subnet:Subnet"}
    assert {name: s.inputs["cidrBlock"] for name, s in subnets.items()} == {
        "network-private-usw2-az2": "10.0.0.0/21",
        "network-private-usw2-az3": "10.0.9.0/24",
        "network-public-usw2-az2": "10.0.8.0/24",
        "network-public-usw2-az3": "10.0.10.0/24",
    }
    (eks,) = [r for r in resources if r.type == "eks:index:Cluster"]
    private = [subnets[f"network-private-usw2-{az}"].id for az in ("az2", "az3")]
    assert eks.inputs["privateSubnetIds"] == private


def test_a_file_that_is_no_state_is_refused_in_one_line(tmp_path, capsys):
    state = tmp_path / "state.json"
    state.write_text('{"deployment": {"resources": []}}')
    assert main(["pin-network", "--state", str(state)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (
        f"pin-network: --state {state}: not a `pulumi stack export` (it holds no subnet of "
        "this stack's network)"
    )
