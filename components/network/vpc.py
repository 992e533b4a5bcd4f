"""The network of a HyperPod EKS cluster: a new VPC, or an existing one adopted, each with a
private subnet per AZ ID, tagged so that internal load balancers land next to their nodes.
`plumbing` lists what traffic needs besides the subnets (routes, NAT, the S3 endpoint, tags):
what runs in the network depends on it, so `pulumi destroy` keeps the network until the
clusters, and every endpoint the operator still tears down through it, are gone.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws

from components.network.plan import plan_subnets, subnet_tags
from components.network.spec import ExistingNetwork, NetworkSpec


@dataclass(frozen=True)
class NetworkArgs:
    spec: NetworkSpec
    region: str
    # Named in the subnets' Kubernetes tags.
    cluster_name: str


class Network(pulumi.ComponentResource):
    def __init__(
        self, name: str, args: NetworkArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("hyperpod-dpd:network:Network", name, None, opts)
        spec = args.spec
        child = pulumi.ResourceOptions(parent=self)
        plans = plan_subnets(spec)

        def tags(suffix: str, extra: Mapping[str, str] | None = None) -> dict[str, str]:
            return {"Name": f"{args.cluster_name}-{suffix}", **(extra or {})}

        vpc = aws.ec2.Vpc(
            name,
            cidr_block=str(spec.vpc_cidr),
            enable_dns_support=True,
            enable_dns_hostnames=True,
            tags=tags("vpc"),
            opts=child,
        )
        gateway = aws.ec2.InternetGateway(name, vpc_id=vpc.id, tags=tags("igw"), opts=child)
        public_routes = aws.ec2.RouteTable(
            f"{name}-public",
            vpc_id=vpc.id,
            routes=[{"cidr_block": "0.0.0.0/0", "gateway_id": gateway.id}],
            tags=tags("public"),
            opts=child,
        )

        public_tags = subnet_tags(args.cluster_name, public=True)
        private_tags = subnet_tags(args.cluster_name, public=False)
        nats: dict[str, aws.ec2.NatGateway] = {}
        self.plumbing: list[pulumi.Resource] = [gateway, public_routes]
        self.public_subnet_ids: list[pulumi.Output[str]] = []
        self.private_subnet_ids: dict[str, pulumi.Output[str]] = {}
        self.control_plane_subnet_ids: list[pulumi.Output[str]] = []
        private_route_tables = []
        for plan in plans:
            az = plan.az_id
            public = aws.ec2.Subnet(
                f"{name}-public-{az}",
                vpc_id=vpc.id,
                cidr_block=str(plan.public),
                availability_zone_id=az,
                map_public_ip_on_launch=False,
                tags=tags(f"public-{az}", public_tags),
                opts=child,
            )
            self.plumbing.append(
                aws.ec2.RouteTableAssociation(
                    f"{name}-public-{az}",
                    subnet_id=public.id,
                    route_table_id=public_routes.id,
                    opts=child,
                )
            )
            self.public_subnet_ids.append(public.id)
            if spec.nat_gateways == "perAz" or not nats:
                address = aws.ec2.Eip(
                    f"{name}-nat-{az}", domain="vpc", tags=tags(f"nat-{az}"), opts=child
                )
                nats[az] = aws.ec2.NatGateway(
                    f"{name}-{az}",
                    allocation_id=address.id,
                    subnet_id=public.id,
                    tags=tags(f"nat-{az}"),
                    # A NAT gateway needs the internet gateway attached first.
                    opts=pulumi.ResourceOptions(parent=self, depends_on=[gateway]),
                )
                self.plumbing.append(nats[az])
            nat = nats.get(az) or next(iter(nats.values()))
            private = aws.ec2.Subnet(
                f"{name}-private-{az}",
                vpc_id=vpc.id,
                cidr_block=str(plan.private),
                availability_zone_id=az,
                tags=tags(f"private-{az}", private_tags),
                opts=child,
            )
            routes = aws.ec2.RouteTable(
                f"{name}-private-{az}",
                vpc_id=vpc.id,
                routes=[{"cidr_block": "0.0.0.0/0", "nat_gateway_id": nat.id}],
                tags=tags(f"private-{az}"),
                opts=child,
            )
            association = aws.ec2.RouteTableAssociation(
                f"{name}-private-{az}", subnet_id=private.id, route_table_id=routes.id, opts=child
            )
            self.plumbing += [routes, association]
            self.private_subnet_ids[az] = private.id
            if plan.control_plane == plan.private:
                self.control_plane_subnet_ids.append(private.id)
            elif plan.control_plane is not None:
                # EKS's own interfaces, reached only from inside the VPC: no route of their own.
                control_plane = aws.ec2.Subnet(
                    f"{name}-control-plane-{az}",
                    vpc_id=vpc.id,
                    cidr_block=str(plan.control_plane),
                    availability_zone_id=az,
                    tags=tags(f"control-plane-{az}"),
                    opts=child,
                )
                self.control_plane_subnet_ids.append(control_plane.id)
            private_route_tables.append(routes.id)

        # Weights and images stream from S3 without paying for, or queueing behind, NAT.
        s3 = aws.ec2.VpcEndpoint(
            f"{name}-s3",
            vpc_id=vpc.id,
            service_name=f"com.amazonaws.{args.region}.s3",
            vpc_endpoint_type="Gateway",
            route_table_ids=private_route_tables,
            tags=tags("s3"),
            opts=child,
        )
        self.plumbing.append(s3)
        self.vpc_id = vpc.id
        self.vpc_cidr: pulumi.Input[str] = str(spec.vpc_cidr)
        self.register_outputs(
            {
                "vpcId": self.vpc_id,
                "privateSubnetIds": self.private_subnet_ids,
                "publicSubnetIds": self.public_subnet_ids,
                "controlPlaneSubnetIds": self.control_plane_subnet_ids,
            }
        )


@dataclass(frozen=True)
class ExistingNetworkArgs:
    existing: ExistingNetwork
    cluster_name: str


class AdoptedNetwork(pulumi.ComponentResource):
    """A VPC this stack does not own: it only adds the Kubernetes tags to the private subnets."""

    def __init__(
        self, name: str, args: ExistingNetworkArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("hyperpod-dpd:network:AdoptedNetwork", name, None, opts)
        existing = args.existing
        vpc = aws.ec2.get_vpc(id=existing.vpc_id)
        # The VPC's routes are not this stack's; the tags it adds are what it plumbs.
        self.plumbing: list[pulumi.Resource] = [
            aws.ec2.Tag(
                f"{name}-{az}-{key}",
                resource_id=subnet_id,
                key=key,
                value=value,
                opts=pulumi.ResourceOptions(parent=self),
            )
            for az, subnet_id in existing.private_subnet_ids.items()
            for key, value in subnet_tags(args.cluster_name, public=False).items()
        ]
        self.vpc_id: pulumi.Input[str] = existing.vpc_id
        self.vpc_cidr: pulumi.Input[str] = vpc.cidr_block
        self.private_subnet_ids: dict[str, pulumi.Input[str]] = dict(existing.private_subnet_ids)
        self.control_plane_subnet_ids: list[pulumi.Input[str]] = list(
            self.private_subnet_ids.values()
        )
        self.public_subnet_ids: Sequence[pulumi.Input[str]] = []
        self.register_outputs({"vpcId": self.vpc_id, "privateSubnetIds": self.private_subnet_ids})
