"""The composition: the components of one environment, wired in dependency order."""

from __future__ import annotations

import pulumi
import pulumi_kubernetes as k8s

from components.dpd_endpoint import DpdEndpoint, DpdEndpointArgs
from infra.settings import Settings


def build_stack(settings: Settings) -> None:
    # Without a kubeconfig the provider uses the ambient one, as kubectl does.
    cluster = k8s.Provider("cluster", kubeconfig=settings.kubeconfig)

    endpoints = []
    for spec in settings.stack.endpoints:
        hf = spec.model_source.hugging_face
        token_key = hf.token_config_key if hf else None
        endpoints.append(
            DpdEndpoint(
                f"{spec.namespace}/{spec.name}",
                DpdEndpointArgs(
                    spec=spec,
                    region=settings.region,
                    model_bucket=settings.stack.buckets.model.name,
                    hf_token=settings.secrets[token_key] if token_key else None,
                ),
                opts=pulumi.ResourceOptions(providers=[cluster]),
            )
        )

    pulumi.export(
        "endpoints",
        {
            f"{spec.namespace}/{spec.name}": {
                "routerUrl": endpoint.router_url,
                "prefillArgs": endpoint.prefill_args,
                "decodeArgs": endpoint.decode_args,
            }
            for spec, endpoint in zip(settings.stack.endpoints, endpoints, strict=True)
        },
    )
