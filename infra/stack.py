"""The composition: the components of one environment, wired in dependency order (network,
EKS, buckets, dependencies chart, HyperPod, node add-ons, observability, operator, endpoints).
With `cluster.existing`, only what runs inside the named cluster is built; with
`operator.installed`, the operator is not installed, only its version checked."""

from dataclasses import dataclass
from pathlib import Path

import pulumi
import pulumi_kubernetes as k8s

from components.cluster.dependencies import HyperPodDependencies, HyperPodDependenciesArgs
from components.cluster.eks import (
    AdoptedEksCluster,
    AdoptedEksClusterArgs,
    EksCluster,
    EksClusterArgs,
)
from components.cluster.hyperpod import HyperPodCluster, HyperPodClusterArgs
from components.cluster.karpenter import autoscaled_groups
from components.cluster.lifecycle_scripts import LifecycleScripts, LifecycleScriptsArgs
from components.cluster.node_addons import NodeAddons, NodeAddonsArgs
from components.cluster.node_pools import KarpenterNodePools, KarpenterNodePoolsArgs
from components.cluster.spec import tiered_storage
from components.endpoint.inference_endpoint import InferenceEndpoint, InferenceEndpointArgs
from components.endpoint.manifest import (
    endpoint_generation,
    object_name,
    sagemaker_endpoint_name,
)
from components.endpoint.routing import in_cluster_url
from components.endpoint.vllm_args import served_model
from components.network.efa_security_group import EfaSecurityGroup, EfaSecurityGroupArgs
from components.network.vpc import AdoptedNetwork, ExistingNetworkArgs, Network, NetworkArgs
from components.network.zones import zone_name
from components.observability.observability import Observability, ObservabilityArgs
from components.observability.workspace import workspace_arn
from components.operator.checks import resolved_operator_version
from components.operator.inference_operator import InferenceOperator, InferenceOperatorArgs
from components.storage.buckets import Buckets, BucketsArgs
from infra.next_steps import EndpointTarget, next_steps, next_steps_script
from infra.settings import Settings
from infra.watched_endpoints import watched_endpoints

LIFECYCLE_DIRECTORY = Path(__file__).resolve().parent.parent / "lifecycle"


@dataclass(frozen=True)
class Cluster:
    provider: k8s.Provider
    # The EKS cluster's name: the control plane's output when this stack builds it, so that
    # what takes it (the add-ons' clusterName) is replaced with the cluster.
    name: pulumi.Input[str]
    oidc_provider_arn: pulumi.Input[str]
    oidc_issuer: pulumi.Input[str]
    hyperpod_arn: pulumi.Input[str]
    # What must be up before a workload is created.
    ready: list[pulumi.Resource]
    exports: dict[str, pulumi.Input[str]]


def _adopt_cluster(settings: Settings) -> Cluster:
    eks = AdoptedEksCluster("eks", AdoptedEksClusterArgs(settings.cluster_name, settings.account))
    existing = settings.stack.cluster.existing
    assert existing is not None
    return Cluster(
        provider=eks.provider,
        name=eks.name,
        oidc_provider_arn=eks.oidc_provider_arn,
        oidc_issuer=eks.oidc_issuer,
        hyperpod_arn=existing.hyperpod_cluster_arn,
        ready=[],
        exports={"eksCluster": eks.name, "hyperpodClusterArn": existing.hyperpod_cluster_arn},
    )


def _build_cluster(settings: Settings, buckets: Buckets) -> Cluster:
    stack, account, name = settings.stack, settings.account, settings.cluster_name
    groups = stack.cluster.instance_groups
    assert stack.network is not None and buckets.lifecycle is not None
    if stack.network.existing is None:
        network: Network | AdoptedNetwork = Network(
            "network", NetworkArgs(spec=stack.network, region=account.region, cluster_name=name)
        )
    else:
        network = AdoptedNetwork(
            "network", ExistingNetworkArgs(existing=stack.network.existing, cluster_name=name)
        )
    security_group = EfaSecurityGroup(
        "efa",
        EfaSecurityGroupArgs(
            vpc_id=network.vpc_id,
            vpc_cidr=network.vpc_cidr,
            cluster_name=name,
            existing_group_id=stack.network.existing.security_group_id
            if stack.network.existing
            else None,
        ),
    )
    # With the network's plumbing as their dependency, a destroy deletes the clusters and their
    # endpoints first, while the operator can still call AWS through the NAT.
    plumbing = [*network.plumbing, *security_group.rules]
    eks = EksCluster(
        "eks",
        EksClusterArgs(
            name=name,
            kubernetes_version=stack.cluster.kubernetes_version,
            support_type=stack.cluster.upgrade_policy.support_type,
            vpc_id=network.vpc_id,
            subnet_ids=network.control_plane_subnet_ids,
            security_group=security_group.group,
            admin_role_arns=stack.cluster.admin_role_arns,
            ci_role_arns=stack.cluster.ci_role_arns,
            addon_versions=stack.cluster.addon_versions,
            endpoint_access=stack.cluster.endpoint_access,
            protect=stack.cluster.protect,
        ),
        opts=pulumi.ResourceOptions(depends_on=plumbing),
    )
    scripts = LifecycleScripts(
        "lifecycle-scripts",
        LifecycleScriptsArgs(bucket=buckets.lifecycle.name, directory=LIFECYCLE_DIRECTORY),
    )
    dependencies = HyperPodDependencies(
        "hyperpod-dependencies",
        HyperPodDependenciesArgs(
            chart_path=stack.cluster.dependencies_chart, region=account.region
        ),
        opts=pulumi.ResourceOptions(providers=[eks.provider]),
    )
    hyperpod = HyperPodCluster(
        "hyperpod",
        HyperPodClusterArgs(
            name=name,
            account=account,
            eks_cluster_arn=eks.arn,
            vpc_id=network.vpc_id,
            security_group_id=security_group.group_id,
            subnet_ids=network.private_subnet_ids,
            instance_groups=groups,
            lifecycle_scripts=scripts,
            lifecycle_bucket=settings.bucket_names.lifecycle,
            kms_key_arn=stack.buckets.kms_key_arn,
            protect=stack.cluster.protect,
            node_autoscaling=stack.cluster.autoscaling.enabled,
            tiered_storage=tiered_storage(
                stack.cluster, [e.kv_cache.l2_cache_backend for e in stack.endpoints]
            ),
        ),
        opts=pulumi.ResourceOptions(depends_on=[dependencies, *plumbing]),
    )
    ready: list[pulumi.Resource] = [hyperpod]
    if stack.cluster.autoscaling.enabled:
        ready.append(
            KarpenterNodePools(
                "karpenter",
                KarpenterNodePoolsArgs(
                    groups=autoscaled_groups(stack.cluster),
                    consolidate_after=stack.cluster.autoscaling.consolidate_after,
                ),
                opts=pulumi.ResourceOptions(providers=[eks.provider], depends_on=[hyperpod]),
            )
        )
    node_addons = NodeAddons(
        "node-addons",
        NodeAddonsArgs(cluster_name=eks.name, coredns_version=stack.cluster.addon_versions.coredns),
        opts=pulumi.ResourceOptions(depends_on=[hyperpod]),
    )
    return Cluster(
        provider=eks.provider,
        name=eks.name,
        oidc_provider_arn=eks.oidc_provider_arn,
        oidc_issuer=eks.oidc_issuer,
        hyperpod_arn=hyperpod.arn,
        ready=[*ready, node_addons],
        exports={
            "vpcId": network.vpc_id,
            "eksCluster": eks.name,
            "hyperpodClusterArn": hyperpod.arn,
        },
    )


def _observability(
    settings: Settings, cluster: Cluster, generations: list[str]
) -> Observability | None:
    spec = settings.stack.observability
    if not spec.enabled:
        return None
    observability = Observability(
        "observability",
        ObservabilityArgs(
            spec=spec,
            cluster_name=settings.cluster_name,
            eks_cluster=cluster.name,
            account=settings.account,
            endpoints=watched_endpoints(settings.stack.endpoints, generations),
        ),
        opts=pulumi.ResourceOptions(depends_on=cluster.ready),
    )
    exports = {
        "prometheusEndpoint": observability.prometheus_endpoint,
        "prometheusWorkspaceArn": observability.workspace_arn,
    }
    if observability.grafana_url is not None:
        exports["grafanaUrl"] = observability.grafana_url
    if observability.dashboard_url is not None:
        exports["grafanaDashboardUrl"] = observability.dashboard_url
    pulumi.export("observability", exports)
    return observability


def _operator(
    settings: Settings, cluster: Cluster, buckets: Buckets, workspaces: list[pulumi.Input[str]]
) -> list[pulumi.Resource]:
    """Install the operator unless it runs already; what endpoints must wait for."""
    stack, account = settings.stack, settings.account
    spec = stack.operator
    if spec.installed is not None:
        found = {"operatorVersion": resolved_operator_version(spec), "installedByThisStack": False}
        if spec.installed.addon_version:
            found["addonVersion"] = spec.installed.addon_version
        pulumi.export("operator", found)
        return []
    model_buckets = {settings.bucket_names.model} | {
        e.model_source.s3.bucket
        for e in stack.endpoints
        if e.model_source.s3 and e.model_source.s3.bucket
    }
    operator = InferenceOperator(
        "inference-operator",
        InferenceOperatorArgs(
            spec=spec,
            cluster_name=settings.cluster_name,
            eks_cluster=cluster.name,
            account=account,
            oidc_provider_arn=cluster.oidc_provider_arn,
            oidc_issuer=cluster.oidc_issuer,
            hyperpod_cluster_arn=cluster.hyperpod_arn,
            tls_bucket=buckets.tls.name,
            model_buckets=sorted(model_buckets),
            endpoint_namespaces=sorted({e.namespace for e in stack.endpoints}),
            kms_key_arn=stack.buckets.kms_key_arn,
            prometheus_workspace_arns=workspaces,
        ),
        opts=pulumi.ResourceOptions(depends_on=cluster.ready),
    )
    pulumi.export(
        "operator",
        {
            "operatorVersion": operator.operator_version,
            "addonVersion": operator.addon_version,
            "executionRoleArn": operator.execution_role_arn,
            "tlsCertificateBucket": operator.tls_bucket,
            "installedByThisStack": True,
        },
    )
    return [operator]


def _export_next_steps(
    settings: Settings, observability: Observability | None, generations: list[str]
) -> None:
    targets = []
    for spec, generation, room in zip(
        settings.stack.endpoints, generations, settings.rollouts, strict=True
    ):
        s3 = spec.model_source.s3
        bucket = (s3.bucket if s3 else None) or settings.bucket_names.model
        targets.append(
            EndpointTarget(
                name=spec.name,
                namespace=spec.namespace,
                object_name=object_name(spec, generation),
                model_name=spec.model_name,
                sagemaker_endpoint=sagemaker_endpoint_name(spec, generation),
                invocation_path=spec.invocation_endpoint,
                weights_uri=f"s3://{bucket}/{s3.folder}" if s3 else None,
                aggregated=spec.aggregated,
                router_url=in_cluster_url(spec) if spec.intelligent_routing else None,
                renames=spec.renames,
                drain_seconds=room.drain_seconds,
                served_model=served_model(spec),
                port=spec.container_port,
            )
        )
    # The dashboard's own address when the stack builds one, else the workspace's.
    metrics = (
        [
            observability.prometheus_endpoint,
            observability.dashboard_url or observability.grafana_url,
        ]
        if observability is not None
        else [None, None]
    )
    pulumi.export(
        "nextSteps",
        pulumi.Output.all(*metrics).apply(
            lambda found: next_steps_script(
                next_steps(
                    cluster=settings.cluster_name,
                    region=settings.account.region,
                    endpoints=targets,
                    stack=pulumi.get_stack(),
                    prometheus_endpoint=found[0],
                    grafana_url=found[1],
                )
            )
        ),
    )


def build_stack(settings: Settings) -> None:
    stack, account = settings.stack, settings.account
    buckets = Buckets(
        "buckets",
        BucketsArgs(
            names=settings.bucket_names,
            account_id=account.id,
            kms_key_arn=stack.buckets.kms_key_arn,
            protect=stack.buckets.protect,
            model_bucket_exists=stack.buckets.model.existing,
            lifecycle_scripts=stack.cluster.existing is None,
        ),
    )
    if stack.cluster.existing is None:
        cluster = _build_cluster(settings, buckets)
    else:
        cluster = _adopt_cluster(settings)
    generations = [
        endpoint_generation(spec, model_bucket=settings.bucket_names.model, region=account.region)
        for spec in stack.endpoints
    ]
    observability = _observability(settings, cluster, generations)
    named = {
        workspace_arn(
            role.autoscaling.server_address, partition=account.partition, account_id=account.id
        )
        for endpoint in stack.endpoints
        for role, _ in endpoint.roles().values()
        if role.autoscaling is not None and role.autoscaling.server_address is not None
    }
    workspaces = [observability.workspace_arn] if observability is not None else []
    workspaces += sorted(named)
    # The operator serves the CRD's conversion webhook: endpoints wait for it.
    ready = cluster.ready + _operator(settings, cluster, buckets, workspaces)

    # Namespaces are shared with whatever else runs in them: adopted if they exist (server-side
    # apply), and left in place on destroy.
    namespaces = {
        namespace: k8s.core.v1.Namespace(
            namespace,
            metadata={"name": namespace},
            opts=pulumi.ResourceOptions(
                provider=cluster.provider, depends_on=cluster.ready, retain_on_delete=True
            ),
        )
        for namespace in sorted({e.namespace for e in stack.endpoints} - {"default"})
    }
    endpoints = {}
    for spec, generation, room in zip(stack.endpoints, generations, settings.rollouts, strict=True):
        hf = spec.model_source.hugging_face
        token_key = hf.token_config_key if hf else None
        name = f"{spec.namespace}/{spec.name}"
        endpoints[name] = InferenceEndpoint(
            name,
            InferenceEndpointArgs(
                spec=spec,
                region=account.region,
                generation=generation,
                create_first=room.create_first,
                model_bucket=buckets.model_name,
                hf_token=settings.secrets[token_key] if token_key else None,
                prometheus_address=observability.prometheus_endpoint if observability else None,
                zone_name=zone_name(spec.topology_spec.availability_zone)
                if spec.topology_spec
                else None,
            ),
            opts=pulumi.ResourceOptions(
                providers=[cluster.provider],
                depends_on=ready
                + ([namespaces[spec.namespace]] if spec.namespace in namespaces else []),
            ),
        )

    for key, value in cluster.exports.items():
        pulumi.export(key, value)
    pulumi.export("modelBucket", buckets.model_name)
    pulumi.export(
        "endpoints",
        {
            name: {
                "objectName": endpoint.object_name,
                "routerUrl": endpoint.router_url,
                "roleArgs": endpoint.role_args,
            }
            for name, endpoint in endpoints.items()
        },
    )
    _export_next_steps(settings, observability, generations)
