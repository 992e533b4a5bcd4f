"""Network and AdoptedNetwork register the real VPC resources, under mocks (preview=False)."""

from ipaddress import IPv4Network

from components.network.spec import ExistingNetwork, NetworkSpec
from components.network.vpc import AdoptedNetwork, ExistingNetworkArgs, Network, NetworkArgs
from tests.support import run_component

AZS = ["usw2-az2", "usw2-az3"]


def network(**spec):
    args = NetworkArgs(
        spec=NetworkSpec.model_validate({"availabilityZoneIds": AZS, **spec}),
        region="us-west-2",
        cluster_name="dpd",
    )
    return run_component(lambda: Network("network", args))


def of(result, suffix):
    return [r for r in result.resources if r.type.endswith(suffix)]


def test_a_vpc_with_dns_support_and_hostnames():
    (vpc,) = of(network(vpcCidr="10.8.0.0/16"), ":Vpc")
    assert vpc.inputs["cidrBlock"] == "10.8.0.0/16"
    assert vpc.inputs["enableDnsSupport"] is True
    assert vpc.inputs["enableDnsHostnames"] is True


def test_private_subnets_are_pinned_by_az_id_and_tagged_for_internal_load_balancers():
    private = [s for s in of(network(), ":Subnet") if "private" in s.name]
    assert sorted(s.inputs["availabilityZoneId"] for s in private) == AZS
    for subnet in private:
        assert subnet.inputs["tags"]["kubernetes.io/role/internal-elb"] == "1"
        assert subnet.inputs["tags"]["kubernetes.io/cluster/dpd"] == "shared"


def test_the_control_plane_gets_subnets_of_its_own_or_stays_on_the_private_ones():
    own = network()
    control_plane = [s for s in of(own, ":Subnet") if "control-plane" in s.name]
    assert [IPv4Network(s.inputs["cidrBlock"]).prefixlen for s in control_plane] == [28, 28]
    # Load balancers go next to the nodes, never into the control plane's /28s.
    assert not any("kubernetes.io/role/internal-elb" in s.inputs["tags"] for s in control_plane)
    shared = network(controlPlaneOnNodeSubnets=True)
    assert not [s for s in of(shared, ":Subnet") if "control-plane" in s.name]


def test_two_public_subnets_route_to_the_internet_gateway():
    result = network()
    public = [s for s in of(result, ":Subnet") if "public" in s.name]
    assert len(public) == 2
    assert all(s.inputs["tags"]["kubernetes.io/role/elb"] == "1" for s in public)
    (gateway,) = of(result, ":InternetGateway")
    (public_routes,) = [t for t in of(result, ":RouteTable") if t.name.endswith("-public")]
    assert public_routes.inputs["routes"] == [{"cidrBlock": "0.0.0.0/0", "gatewayId": gateway.id}]
    associations = [a for a in of(result, ":RouteTableAssociation") if "public" in a.name]
    assert {a.inputs["routeTableId"] for a in associations} == {public_routes.id}
    assert {a.inputs["subnetId"] for a in associations} == {s.id for s in public}


def test_one_nat_gateway_by_default_and_one_per_az_as_an_option():
    assert len(of(network(), ":NatGateway")) == 1
    assert len(of(network(natGateways="perAz"), ":NatGateway")) == 2


def test_private_route_tables_send_traffic_through_nat_and_reach_s3_through_the_endpoint():
    result = network()
    (nat,) = of(result, ":NatGateway")
    private_tables = [t for t in of(result, ":RouteTable") if "private" in t.name]
    assert all(
        t.inputs["routes"] == [{"cidrBlock": "0.0.0.0/0", "natGatewayId": nat.id}]
        for t in private_tables
    )
    (endpoint,) = of(result, ":VpcEndpoint")
    assert endpoint.inputs["vpcEndpointType"] == "Gateway"
    assert endpoint.inputs["serviceName"] == "com.amazonaws.us-west-2.s3"
    assert sorted(endpoint.inputs["routeTableIds"]) == sorted(t.id for t in private_tables)


def test_an_existing_network_is_only_tagged():
    existing = ExistingNetwork.model_validate(
        {
            "vpcId": "vpc-0123456789abcdef0",
            "privateSubnetIds": {
                "usw2-az2": "subnet-0123456789abcdef0",
                "usw2-az3": "subnet-0123456789abcdef1",
            },
        }
    )
    result = run_component(
        lambda: AdoptedNetwork(
            "network", ExistingNetworkArgs(existing=existing, cluster_name="dpd")
        )
    )
    assert not of(result, ":Vpc") and not of(result, ":Subnet")
    tags = {
        (t.inputs["resourceId"], t.inputs["key"]): t.inputs["value"] for t in of(result, ":Tag")
    }
    assert tags[("subnet-0123456789abcdef0", "kubernetes.io/role/internal-elb")] == "1"
    assert tags[("subnet-0123456789abcdef1", "kubernetes.io/cluster/dpd")] == "shared"
