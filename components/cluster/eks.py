"""EksCluster: the EKS control plane that orchestrates HyperPod, and a provider into it."""

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws
import pulumi_eks as eks
import pulumi_kubernetes as k8s

from components.cluster.eks_access import AUTHENTICATION_MODE, CONTROL_PLANE_LOGS, access_entries
from components.cluster.eks_versions import SupportType
from components.cluster.kubeconfig import eks_kubeconfig, oidc_provider_arn
from components.cluster.spec import AddonVersions, EndpointAccess
from components.core.aws_account import AwsAccount
from components.core.options import inherited_depends_on


@dataclass(frozen=True)
class EksClusterArgs:
    name: str
    kubernetes_version: str
    vpc_id: pulumi.Input[str]
    subnet_ids: Sequence[pulumi.Input[str]]
    security_group: aws.ec2.SecurityGroup
    # What EKS does at the end of the version's standard support (cluster/spec.py says why
    # EXTENDED is the default).
    support_type: SupportType = "EXTENDED"
    admin_role_arns: Sequence[str] = ()
    ci_role_arns: Sequence[str] = ()
    addon_versions: AddonVersions = field(default_factory=AddonVersions)
    endpoint_access: EndpointAccess = field(
        default_factory=lambda: EndpointAccess(public=False, private=True)
    )
    # Refuse `pulumi destroy` of the control plane.
    protect: bool = False


# pulumi-eks's control plane, inside its component.
CONTROL_PLANE_TYPE = "aws:eks/cluster:Cluster"


def delete_control_plane_first(
    args: pulumi.ResourceTransformArgs,
) -> pulumi.ResourceTransformResult | None:
    """EKS names are unique per account and region, and this cluster's is fixed, so a replacement
    must delete the old control plane first. Only transforms reach the children of a packaged
    component such as pulumi-eks's (they do not inherit deleteBeforeReplace)."""
    if args.type_ != CONTROL_PLANE_TYPE:
        return None
    return pulumi.ResourceTransformResult(
        props=args.props,
        opts=pulumi.ResourceOptions.merge(
            args.opts, pulumi.ResourceOptions(delete_before_replace=True)
        ),
    )


class EksCluster(pulumi.ComponentResource):
    """No node groups: HyperPod brings the nodes. Pass what the cluster needs of the network
    beyond its subnets (routes, NAT, the security group's rules) in `opts.depends_on`."""

    def __init__(
        self, name: str, args: EksClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("hyperpod-dpd:eks:EksCluster", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        versions = args.addon_versions
        self.cluster = eks.Cluster(
            name,
            name=args.name,
            version=args.kubernetes_version,
            # Said even where it is EKS's default, so the preview shows the choice.
            upgrade_policy=aws.eks.ClusterUpgradePolicyArgs(support_type=args.support_type),
            vpc_id=args.vpc_id,
            private_subnet_ids=list(args.subnet_ids),
            endpoint_private_access=args.endpoint_access.private,
            endpoint_public_access=args.endpoint_access.public,
            public_access_cidrs=args.endpoint_access.public_cidrs,
            skip_default_node_group=True,
            skip_default_security_groups=True,
            cluster_security_group=args.security_group,
            authentication_mode=AUTHENTICATION_MODE,
            access_entries=access_entries(args.admin_role_arns, args.ci_role_arns),
            enabled_cluster_log_types=CONTROL_PLANE_LOGS,
            create_oidc_provider=True,
            # Unpinned add-ons take EKS's default version for the Kubernetes version.
            vpc_cni_options={"addon_version": versions.vpc_cni} if versions.vpc_cni else None,
            kube_proxy_addon_options=(
                {"version": versions.kube_proxy} if versions.kube_proxy else None
            ),
            # coredns stays DEGRADED until nodes exist, which would hold the whole deployment.
            coredns_addon_options={"enabled": False},
            # deleteBeforeReplace on the component is what Construct and the offline diff see;
            # the transform puts it on the control plane, where it acts.
            opts=pulumi.ResourceOptions(
                parent=self,
                # The caller's, such as the network's plumbing: a remote component's children
                # are deleted before it, so they go before what it waits for.
                depends_on=[args.security_group, *inherited_depends_on(opts)],
                protect=args.protect,
                delete_before_replace=True,
                transforms=[delete_control_plane_first],
            ),
        )
        # The control plane's output, not `args.name`: an add-on that takes it as its
        # clusterName (which forces a new add-on) is replaced with the cluster.
        self.name: pulumi.Output[str] = self.cluster.eks_cluster.name
        aws.eks.Addon(
            f"{name}-pod-identity-agent",
            cluster_name=self.name,
            addon_name="eks-pod-identity-agent",
            addon_version=versions.pod_identity_agent,
            opts=child,
        )
        self.provider = k8s.Provider(name, kubeconfig=self.cluster.kubeconfig_json, opts=child)
        self.arn = self.cluster.eks_cluster.arn
        self.oidc_provider_arn = self.cluster.oidc_provider_arn
        self.oidc_issuer = self.cluster.oidc_issuer
        self.register_outputs(
            {"name": self.name, "arn": self.arn, "oidcProviderArn": self.oidc_provider_arn}
        )


@dataclass(frozen=True)
class AdoptedEksClusterArgs:
    name: str
    account: AwsAccount


class AdoptedEksCluster(pulumi.ComponentResource):
    """An EKS cluster this stack does not own: the same outputs, from a lookup."""

    def __init__(
        self, name: str, args: AdoptedEksClusterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__("hyperpod-dpd:eks:AdoptedEksCluster", name, None, opts)
        found = aws.eks.get_cluster(name=args.name)
        issuer = found.identities[0].oidcs[0].issuer
        kubeconfig = eks_kubeconfig(
            cluster_name=args.name,
            endpoint=found.endpoint,
            ca_data=found.certificate_authorities[0].data,
            region=args.account.region,
        )
        self.provider = k8s.Provider(
            name, kubeconfig=json.dumps(kubeconfig), opts=pulumi.ResourceOptions(parent=self)
        )
        self.name = args.name
        self.arn: pulumi.Input[str] = found.arn
        self.oidc_provider_arn: pulumi.Input[str] = oidc_provider_arn(args.account, issuer)
        # Without https://, as pulumi-eks gives it: the prefix of IRSA condition keys.
        self.oidc_issuer: pulumi.Input[str] = issuer.removeprefix("https://")
        self.register_outputs({"name": self.name, "arn": self.arn})
