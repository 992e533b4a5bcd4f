"""Every name an endpoint's settings make, held to what its owner takes. Fields are relative to
the endpoint.

Named after the object (the endpoint's name, or its generation's with rollout newName):
- the InferenceEndpointConfig, and the `app` label AWS's CLI finds its pods by (hyperpod-cli,
  `hp_endpoint.py`, list_pods), at most 63 characters;
- the Service the operator puts in front of the pods, of the same name (aws-samples/
  llm_model_hub, `hyperpod_inference.py`: "The HyperPod operator will create a Service ... with
  this name"): a DNS-1035 label, starting with a letter;
- with intelligent routing, in the operator's namespace, the router `<object>-<namespace>-router`
  (its pods labelled `app` with that name, llm_model_hub) and its Service
  `<object>-<namespace>-routing-service` (AWS's DPD guide), at most 63;
- on an aggregated endpoint that autoscales, KEDA's ScaledObject `<object>-scaled-object` (the
  HPA `keda-hpa-<object>-scaled-object` of AWS's autoscaling walkthrough), whose name KEDA
  writes into its HPA's `app.kubernetes.io/part-of` label (kedacore/keda,
  controllers/keda/hpa.go), at most 63. No public source names DPD's ScaledObjects.
With rollout newName, SageMaker's endpoint and model carry the generation too, and SageMaker
takes 63 characters (CreateEndpoint, CreateModel).
"""

from __future__ import annotations

from components.core.findings import Finding, error
from components.core.kubernetes_names import NAME_MAX
from components.endpoint.generation import GENERATION_DIGITS, GENERATION_SUFFIX, generation_name
from components.endpoint.routing import router_service
from components.endpoint.spec import EndpointSpec

SAGEMAKER_NAME_MAX = 63
_EXAMPLE_DIGEST = "0" * GENERATION_DIGITS


def _object(spec: EndpointSpec) -> str:
    return generation_name(spec.name, _EXAMPLE_DIGEST) if spec.renames else spec.name


def _derived(spec: EndpointSpec) -> list[tuple[str, str]]:
    """(what, name) of every name the object's name makes."""
    obj = _object(spec)
    found = [("the object and its pods' app label", obj)]
    if spec.intelligent_routing:
        found.append(("the operator's routing Service", router_service(obj, spec.namespace)))
    if spec.serving is not None and spec.serving.autoscaling is not None:
        found.append(("KEDA's ScaledObject", f"{obj}-scaled-object"))
    return found


def _generation_note(spec: EndpointSpec) -> str:
    return f" (with rollout newName, -g<digest> adds {GENERATION_SUFFIX})" if spec.renames else ""


def _object_names(spec: EndpointSpec) -> list[Finding]:
    what, longest = max(_derived(spec), key=lambda found: len(found[1]))
    if len(longest) > NAME_MAX:
        most = NAME_MAX - (len(longest) - len(spec.name))
        return [
            error(
                "derived-name-length",
                "name",
                f"{spec.name!r} makes {what} {longest!r}, {len(longest)} characters, and "
                f"Kubernetes takes {NAME_MAX}: name may have at most {most} characters here"
                f"{_generation_note(spec)}",
            )
        ]
    if not spec.name[0].isalpha():
        return [
            error(
                "derived-name-start",
                "name",
                f"{spec.name!r} starts with a digit; the operator names a Service after it, "
                "and a Service's name starts with a letter",
            )
        ]
    return []


def _sagemaker_names(spec: EndpointSpec) -> list[Finding]:
    if not spec.renames or spec.endpoint_name is None:
        return []
    most = SAGEMAKER_NAME_MAX - GENERATION_SUFFIX
    return [
        error(
            "sagemaker-name-length",
            field,
            f"{value!r} has {len(value)} characters; with rollout newName each generation "
            f"creates its SageMaker {what} as {value}-g<digest>, and SageMaker takes "
            f"{SAGEMAKER_NAME_MAX}: it may have at most {most} (or set rollout: keepName)",
        )
        for field, value, what in (
            ("endpointName", spec.endpoint_name, "endpoint"),
            ("modelName", spec.model_name, "model"),
        )
        if len(value) > most
    ]


def check_names(spec: EndpointSpec) -> list[Finding]:
    if spec.adopted and spec.rollout == "newName":
        return [
            error(
                "adopted-rollout",
                "rollout",
                "newName would rename the adopted object, replacing it on the first `pulumi "
                "up`; an adopted endpoint keeps its names (remove adopted to rename it)",
            )
        ]
    return _object_names(spec) + _sagemaker_names(spec)
