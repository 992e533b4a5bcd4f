"""How a change reaches an endpoint's callers. Plain values only.

The operator takes a change in place (scale, triggers, threshold, tags), by rolling its
Deployments (`POD_TEMPLATE`; old pods serve until new ones are ready, aws-samples/llm_model_hub),
or not at all (`replaced_on`). A replacement follows the endpoint's `rollout`:
- keepName: Pulumi deletes the object and creates it again (`replaceOnChanges`), keeping every
  name; nothing answers until the new pods are ready.
- newName: the object, SageMaker endpoint and model are named `<name>-g<digest>`, the digest over
  those paths. Pulumi creates the new generation beside the old, waits until it serves, points
  the stack's ExternalName Service `<name>` at it, waits the drain window, and deletes the old
  one last (the engine deletes replaced resources after registration ends: pulumi/pulumi,
  `deploymentExecutor.performDeletes`).
"""

import hashlib
import json
import math
from collections.abc import Collection
from typing import Any

from components.endpoint.spec import EndpointSpec

GENERATION_DIGITS = 5
# What a generation adds to a name: "-g" and the digest.
GENERATION_SUFFIX = 2 + GENERATION_DIGITS
WAIT_FOR = "pulumi.com/waitFor"

# What the pods are made of: a change here but a scale rolls them.
POD_TEMPLATE = (
    "spec.worker",
    "spec.pdSpec.prefillSpec",
    "spec.pdSpec.decodingSpec",
    "spec.pdSpec.topologySpec",
    "spec.instanceType",
    "spec.instanceTypes",
    "spec.nodeAffinity",
    "spec.modelSourceConfig",
    "spec.kvCacheSpec",
    "spec.kubernetes",
    "spec.modelCacheConfig",
)
# What no live endpoint takes: intelligentRoutingSpec ("cannot be modified", the CRD), and the
# names the operator creates SageMaker's endpoint and model under.
_NEVER_IN_PLACE = ("spec.intelligentRoutingSpec", "spec.endpointName", "spec.modelName")
# DPD: prefill and decode roll as two Deployments, one apart from the other (hyperpod-cli pull
# request #427), so old pods hand KV to new ones for a while; what makes the KV they exchange
# (the engine, its flags and environment, the weights, LMCache) must not change under them.
# spec.replicas exists only without pdSpec: a change there is a move from aggregated.
DPD_REPLACES = (
    *_NEVER_IN_PLACE,
    "spec.replicas",
    "spec.worker.image",
    "spec.worker.command",
    "spec.worker.args",
    "spec.worker.environmentVariables",
    "spec.pdSpec.prefillSpec.args",
    "spec.pdSpec.decodingSpec.args",
    "spec.modelSourceConfig",
    "spec.kvCacheSpec",
)
# Aggregated: one Deployment, no pair to break, so it rolls for everything else; pdSpec exists
# only with DPD, and the seed's way from one mode to the other is a new deployment.
AGGREGATED_REPLACES = (*_NEVER_IN_PLACE, "spec.pdSpec")

# What a drain waits on top of the longest request: CoreDNS's cache of the alias's old answer
# (the Corefile Kubernetes installs CoreDNS with: `cache 30`).
DNS_CACHE_SECONDS = 30
# Without a workload and its SLO to say how long a request takes.
DEFAULT_DRAIN_SECONDS = 300


def replaced_on(spec: EndpointSpec) -> tuple[str, ...]:
    return AGGREGATED_REPLACES if spec.aggregated else DPD_REPLACES


def _at(spec: dict[str, Any], path: str) -> Any:
    value: Any = spec
    for key in path.removeprefix("spec.").split("."):
        value = value.get(key) if isinstance(value, dict) else None
    return value


def generation(spec: dict[str, Any], paths: Collection[str]) -> str:
    """The digest of a manifest spec's values at `paths` (dotted, from `spec.`)."""
    kept = json.dumps({p: _at(spec, p) for p in paths}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(kept.encode()).hexdigest()[:GENERATION_DIGITS]


def generation_name(name: str, digest: str) -> str:
    return f"{name}-g{digest}"


def ready_annotations(jsonpath: str) -> dict[str, str]:
    """Annotations that make `pulumi up` wait for the object to match `jsonpath` (written as
    `kubectl get -o jsonpath={...}` takes it, inside braces)."""
    return {WAIT_FOR: f"jsonpath={jsonpath}"}


def stable_address(name: str, namespace: str) -> str:
    """The DNS name in-cluster clients keep across generations."""
    return f"{name}.{namespace}.svc.cluster.local"


def stable_service(name: str, namespace: str, target: str, port: int) -> dict[str, Any]:
    """The Service behind `stable_address`: an alias of `target`. `port` is documentation only:
    an ExternalName Service forwards nothing itself."""
    return {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "type": "ExternalName",
            "externalName": target,
            "ports": [{"name": "http", "port": port, "protocol": "TCP"}],
        },
    }


def drain_seconds(spec: EndpointSpec) -> int:
    """How long the old generation serves after a swap: the setting, or the workload's longest
    request (its SLO's time to first token, then its outputTokens at the SLO's time per output
    token) plus the DNS cache, or DEFAULT_DRAIN_SECONDS without those figures."""
    if spec.drain_seconds is not None:
        return spec.drain_seconds
    workload = spec.workload
    slo = workload.slo if workload else None
    figures = (workload.output_tokens, slo.ttft_ms, slo.tpot_ms) if slo else (None,)
    if None in figures:
        return DEFAULT_DRAIN_SECONDS
    tokens, ttft_ms, tpot_ms = figures
    longest_ms = ttft_ms + tokens * tpot_ms
    return math.ceil(longest_ms / 1000) + DNS_CACHE_SECONDS
