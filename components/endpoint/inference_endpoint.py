"""InferenceEndpoint: one endpoint, DPD or aggregated, as an InferenceEndpointConfig, and with
rollout newName the stable Service in front of its generations and the drain between them
(generation.py)."""

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
import pulumiverse_time as time

from components.core.options import inherited_depends_on
from components.endpoint.generation import drain_seconds, replaced_on, stable_service
from components.endpoint.manifest import (
    API_VERSION,
    HF_TOKEN_KEY,
    KIND,
    build_manifest,
    hf_token_secret_name,
    object_name,
)
from components.endpoint.routing import ROUTER_PORT, in_cluster_url, routing_service_host
from components.endpoint.spec import EndpointSpec
from components.endpoint.vllm_args import effective_args

TYPE = "hyperpod-dpd:endpoint:InferenceEndpoint"
FORMER_TYPE = "hyperpod-dpd:endpoint:DpdEndpoint"
# How long `pulumi up` waits for a generation to serve: its pods pull the image and load the
# weights first, "5 to 10 minutes from a cold S3 fetch" for a 70B model (AWS), longer for
# bigger ones. Deleting lets the operator tear down the SageMaker endpoint and load balancer.
READY_TIMEOUTS = pulumi.CustomTimeouts(create="60m", update="60m", delete="30m")


@dataclass(frozen=True)
class InferenceEndpointArgs:
    spec: EndpointSpec
    # Region of the model bucket, for S3 sources that don't name their own.
    region: str
    # The endpoint's generation (manifest.endpoint_generation), which names its object.
    generation: str
    # Bucket holding the weights, for S3 sources that don't name their own.
    model_bucket: pulumi.Input[str] | None = None
    # The Hugging Face token, when the spec's source supplies one through config.
    hf_token: pulumi.Input[str] | None = None
    # The stack's AMP workspace address, which autoscaling roles query unless they name theirs.
    prometheus_address: pulumi.Input[str] | None = None
    # The deploying account's name for topologySpec.availabilityZone (network/zones.py), the
    # zone label nodes carry; None writes the setting as given.
    zone_name: pulumi.Input[str] | None = None
    # With rollout newName, create a new generation beside the old one, which the cluster must
    # hold (infra/rollout_room.py); False deletes the old one first, an outage.
    create_first: bool = True


class InferenceEndpoint(pulumi.ComponentResource):
    """Pass the cluster's Kubernetes provider in `opts.providers`, and what must exist first
    (the inference operator, whose webhook serves the CRD) in `opts.depends_on`."""

    def __init__(
        self,
        name: str,
        args: InferenceEndpointArgs,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        # The type's former name: the alias keeps the URNs of stacks deployed under it, so
        # `pulumi up` updates their objects in place (children inherit the parent's aliases).
        aliased = pulumi.ResourceOptions(aliases=[pulumi.Alias(type_=FORMER_TYPE)])
        super().__init__(TYPE, name, None, pulumi.ResourceOptions.merge(opts, aliased))
        spec = args.spec
        hf = spec.model_source.hugging_face
        if (hf is not None and hf.token_config_key is not None) != (args.hf_token is not None):
            raise ValueError(
                f"{name}: hf_token is needed exactly when the spec's huggingFace source "
                "names a tokenConfigKey"
            )
        depends_on = inherited_depends_on(opts)
        generation = args.generation

        if args.hf_token is not None:
            # One Secret for every generation: the token is no part of what they differ in.
            token = k8s.core.v1.Secret(
                f"{name}-hf-token",
                metadata={"name": hf_token_secret_name(spec.name), "namespace": spec.namespace},
                type="Opaque",
                string_data={HF_TOKEN_KEY: pulumi.Output.secret(args.hf_token)},
                opts=pulumi.ResourceOptions(parent=self, depends_on=depends_on),
            )
            depends_on.append(token)

        # One apply: Pulumi scans each value an Output resolves to for unknowns.
        manifest_spec = pulumi.Output.all(
            args.model_bucket, args.prometheus_address, args.zone_name
        ).apply(
            lambda v: build_manifest(
                spec,
                model_bucket=v[0],
                region=args.region,
                prometheus_address=v[1],
                zone_name=v[2],
                digest=generation,
            )["spec"]
        )
        metadata = build_manifest(spec, model_bucket=None, region=args.region, digest=generation)[
            "metadata"
        ]
        swaps = spec.renames and args.create_first
        self.custom_resource = k8s.apiextensions.CustomResource(
            name,
            api_version=API_VERSION,
            kind=KIND,
            metadata=metadata,
            spec=manifest_spec,
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=depends_on,
                # With rollout newName a change it cannot take renames the object, which is
                # then replaced; keepName replaces it under its name, so deleting it first.
                delete_before_replace=not swaps,
                replace_on_changes=None if spec.renames else list(replaced_on(spec)),
                custom_timeouts=READY_TIMEOUTS,
            ),
        )
        self.object_name: str = object_name(spec, generation)
        # Without routing, an aggregated endpoint is reached through its load balancer.
        self.router_url = in_cluster_url(spec) if spec.intelligent_routing else None
        moved: list[pulumi.Resource] = [self.custom_resource]
        if spec.renames and spec.intelligent_routing:
            address = stable_service(
                spec.name,
                spec.namespace,
                routing_service_host(self.object_name, spec.namespace),
                ROUTER_PORT,
            )
            moved = [
                k8s.core.v1.Service(
                    f"{name}-address",
                    metadata=address["metadata"],
                    spec=address["spec"],
                    opts=pulumi.ResourceOptions(parent=self, depends_on=moved),
                )
            ]
        if swaps:
            # Replaced with each generation, once the address has moved: the old generation,
            # deleted at the end of the update, serves the requests in flight meanwhile.
            time.Sleep(
                f"{name}-drain",
                create_duration=f"{drain_seconds(spec)}s",
                triggers={"generation": self.object_name},
                opts=pulumi.ResourceOptions(parent=self, depends_on=moved),
            )

        # Known from the spec alone, so plain values: Output.from_input would wrap every
        # element of the argument lists in an Output of its own, a cost per flag.
        self.endpoint_name: str = spec.name
        self.namespace: str = spec.namespace
        # Each role's vLLM command line, by role: prefill and decode, or serving.
        self.role_args: dict[str, list[str]] = {
            role: effective_args(spec, settings) for role, (settings, _) in spec.roles().items()
        }
        self.register_outputs(
            {
                "name": self.endpoint_name,
                "namespace": self.namespace,
                "objectName": self.object_name,
                "routerUrl": self.router_url,
                "roleArgs": self.role_args,
            }
        )
