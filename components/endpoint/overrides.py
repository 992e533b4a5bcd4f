"""Which InferenceEndpointConfig spec fields the typed settings own, in each serving mode, and
the rule for `specOverrides`: it may add any field of the CRD that no setting owns, and none
that one does, since an override of an owned field would slip past that setting's checks."""

from dataclasses import dataclass

from components.core.findings import Finding, error
from components.endpoint.environment import credentials_in
from components.endpoint.spec import EndpointSpec
from components.endpoint.vllm_args import MODEL_PATH


@dataclass(frozen=True)
class Fixed:
    why: str


# The spec fields the typed settings own, each with the setting that controls it, or Fixed.
# Every field build_manifest writes, or a setting leaves out, needs an entry (test_manifest.py
# fails without one).
Owners = dict[str, str | Fixed]
SHARED_FIELDS: Owners = {
    "endpointName": "endpointName",
    "instanceType": "instanceType",
    # The CRD makes both exclusive with instanceType, which is then left out.
    "instanceTypes": "instanceTypes",
    "nodeAffinity": "nodeAffinity",
    "worker.command": "command",
    "invocationEndpoint": "invocationEndpoint",
    "modelName": "modelName",
    "modelSourceConfig": "modelSource",
    "loadBalancer.healthCheckPath": "healthCheckPath",
    "loadBalancer.routingAlgorithm": "loadBalancer.routingAlgorithm",
    "loadBalancer.idleTimeoutSeconds": "loadBalancer.idleTimeoutSeconds",
    "kubernetes": "kubernetes",
    "modelCacheConfig": "modelCacheConfig",
    "worker.probes": "probes",
    "worker.requestLimits": "requestLimits",
    "worker.workingDir": "workingDir",
    "metrics.enabled": "metrics.enabled",
    "metrics.metricsScrapeIntervalSeconds": "metrics.metricsScrapeIntervalSeconds",
    "metrics.modelMetrics": "metrics.modelMetrics",
    "kvCacheSpec.enableL1Cache": "kvCache.enableL1Cache",
    "kvCacheSpec.enableL2Cache": "kvCache.enableL2Cache and kvCache.l2CacheBackend",
    "kvCacheSpec.l2CacheSpec": "kvCache.l2CacheBackend and kvCache.l2CacheLocalUrl",
    # The router's own autoscaling (intelligentRoutingSpec.autoScalingSpec) is specOverrides'.
    "intelligentRoutingSpec.enabled": "routingEnabled",
    "intelligentRoutingSpec.routingStrategy": "routingStrategy",
    "tlsConfig.customCertificateConfig": "tlsConfig.customCertificateConfig",
    "tlsConfig.tlsCertificateOutputS3Uri": "tlsConfig.tlsCertificateOutputS3Uri",
    "tags": "tags",
    "worker.image": "image",
    "worker.args": "workerArgs",
    "worker.environmentVariables": "environmentVariables",
    # Left to specOverrides: resources.claims (Dynamic Resource Allocation), here and on roles.
    "worker.resources.requests": "workerResources",
    "worker.resources.limits": "workerResources",
    "worker.modelInvocationPort": "modelInvocationPort",
    "worker.modelVolumeMount.name": "modelVolumeMount.name",
    "worker.modelVolumeMount.mountPath": Fixed(
        f"the model server reads the weights at {MODEL_PATH}, where the settings' flags and "
        "variables point"
    ),
}
DPD_FIELDS: Owners = {
    **SHARED_FIELDS,
    **{
        f"pdSpec.{crd}.{field}": role
        for crd, role in (("prefillSpec", "prefill"), ("decodingSpec", "decode"))
        for field in ("replicas", "resources.requests", "resources.limits", "args", "nodeSelector")
    },
    "pdSpec.routingThreshold": "routingThreshold",
    "pdSpec.topologySpec": "topologySpec",
    "pdSpec.autoScalingSpec.prefillAutoScaling": "prefill.autoscaling",
    "pdSpec.autoScalingSpec.decodingAutoScaling": "decode.autoscaling",
    # Beside pdSpec the roles count and scale the pods; these would count them again.
    "replicas": "prefill.replicas and decode.replicas",
    "autoScalingSpec": "prefill.autoscaling and decode.autoscaling",
}
AGGREGATED_FIELDS: Owners = {
    **SHARED_FIELDS,
    "replicas": "serving.replicas",
    "autoScalingSpec": "serving.autoscaling",
    # An override would make the endpoint DPD behind the settings' back: DPD is prefill: and
    # decode: in place of serving:.
    "pdSpec": "prefill and decode",
}


def field_owners(spec: EndpointSpec) -> Owners:
    return AGGREGATED_FIELDS if spec.aggregated else DPD_FIELDS


def leaf_paths(value: object, path: str = "") -> list[str]:
    if isinstance(value, dict) and value:
        return [
            leaf
            for key, child in value.items()
            for leaf in leaf_paths(child, f"{path}.{key}" if path else str(key))
        ]
    return [path]


def owned_field(path: str, owners: Owners = DPD_FIELDS) -> str | None:
    for field in owners:
        if path == field or path.startswith(f"{field}.") or field.startswith(f"{path}."):
            return field
    return None


def add_overrides(base: dict, overrides: dict) -> dict:
    """`base` with what `overrides` set where it sets nothing, at any depth."""
    merged = dict(base)
    for key, value in overrides.items():
        if isinstance(merged.get(key), dict) and isinstance(value, dict):
            merged[key] = add_overrides(merged[key], value)
        else:
            merged.setdefault(key, value)
    return merged


def check_overrides(spec: EndpointSpec) -> list[Finding]:
    owners = field_owners(spec)
    found = credentials_in(spec.spec_overrides, "specOverrides", "credential-in-overrides")
    owned: set[str] = set()
    for path in leaf_paths(spec.spec_overrides):
        field = owned_field(path, owners)
        if field is None or field in owned:
            continue
        owned.add(field)
        owner = owners[field]
        why = (
            f"is fixed, because {owner.why}; remove it"
            if isinstance(owner, Fixed)
            else f"is described by the setting {owner}, whose checks an override would bypass; "
            "set that instead"
        )
        found.append(error("override-of-typed-field", f"specOverrides.{field}", why))
    return found
