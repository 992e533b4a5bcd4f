"""Generations of an endpoint: how a change the operator cannot make in place replaces the
InferenceEndpointConfig with no outage. Plain values only; any endpoint kind can use it.

Pulumi replaces by creating the new object first and deleting the old one once everything
that depends on the replacement is done, unless the resource says `deleteBeforeReplace`
(Pulumi's resource options docs). Two objects of one kind cannot share a name and namespace,
so each generation of an endpoint gets a name of its own, `<name>-g<digest>`, the digest
taken over everything the operator cannot change in place: a change there changes the name,
and Pulumi replaces the object (pulumi-kubernetes replaces on a new `metadata.name`); a
change anywhere else keeps the name and is an update.

The new generation waits for the operator to say it serves (`pulumi.com/waitFor`, read by
pulumi-kubernetes' await logic, which also waits for `status.observedGeneration` to catch
up), and only then is the stable address moved to it and the old generation deleted. The
stable address is a Service the stack owns, named after the endpoint in its namespace: an
ExternalName alias of the live generation's routing Service, so in-cluster clients keep one
DNS name (`<name>.<namespace>.svc.cluster.local`) across generations. An alias, not a
selector: the operator's router pods run in its own namespace, and no public source names
their labels.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Collection
from typing import Any

from components.core.findings import Finding, error

GENERATION_DIGITS = 5
# What a generation adds to the endpoint's name: "-g" and the digest.
GENERATION_SUFFIX = 2 + GENERATION_DIGITS
WAIT_FOR = "pulumi.com/waitFor"
# SageMaker's endpoint names, and the CRD's endpointName: at most 63 characters.
SAGEMAKER_NAME_MAX = 63


def _without(value: Any, paths: Collection[str], here: str = "") -> Any:
    if not isinstance(value, dict):
        return value
    return {
        key: _without(item, paths, path)
        for key, item in value.items()
        if (path := f"{here}.{key}" if here else key) not in paths
    }


def generation(spec: dict[str, Any], in_place: Collection[str]) -> str:
    """The digest of a manifest spec, leaving out the dotted paths the operator changes in
    place (and whatever names the generation itself)."""
    kept = json.dumps(_without(spec, in_place), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(kept.encode()).hexdigest()[:GENERATION_DIGITS]


def generation_name(name: str, digest: str) -> str:
    """The generation's name: the endpoint's, the object's in Kubernetes, and so the prefix of
    every name the operator derives from it (pods, router, routing Service)."""
    return f"{name}-g{digest}"


def ready_annotations(jsonpath: str) -> dict[str, str]:
    """Annotations that make `pulumi up` wait for the object to match `jsonpath` (written as
    `kubectl get -o jsonpath={...}` takes it, inside braces)."""
    return {WAIT_FOR: f"jsonpath={jsonpath}"}


def stable_address(name: str, namespace: str) -> str:
    """The DNS name in-cluster clients keep across generations."""
    return f"{name}.{namespace}.svc.cluster.local"


def stable_service(name: str, namespace: str, target: str, port: int) -> dict[str, Any]:
    """The Service behind `stable_address`: an alias of `target`, a DNS name in the cluster.
    `port` is documentation only: an ExternalName Service forwards nothing itself, clients
    reach the target on the port they ask for."""
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


def check_sagemaker_name(endpoint_name: str | None, *, generations: bool = True) -> list[Finding]:
    """Each generation's SageMaker endpoint adds -g<digest> to `endpointName`, which SageMaker
    takes to 63 characters (the setting's own shape holds it to 63 without generations). The
    field is relative to the endpoint."""
    most = SAGEMAKER_NAME_MAX - GENERATION_SUFFIX
    if not generations or endpoint_name is None or len(endpoint_name) <= most:
        return []
    return [
        error(
            "endpoint-name-length",
            "endpointName",
            f"{endpoint_name!r} has {len(endpoint_name)} characters; each generation's SageMaker "
            f"endpoint adds -g<digest> ({GENERATION_SUFFIX} characters) to it, and SageMaker "
            f"takes {SAGEMAKER_NAME_MAX}, so it may have {most}",
        )
    ]
