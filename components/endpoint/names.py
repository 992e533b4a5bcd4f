"""Every name an endpoint makes, held to what its owner takes. Fields are relative to the
endpoint. From the object's name (the endpoint's, or its generation's):
- the object, and the `app` label AWS's CLI finds its pods by (hyperpod-cli `hp_endpoint.py`):
  at most 63 characters; the operator's Service of that name (aws-samples/llm_model_hub): a
  DNS-1035 label, starting with a letter;
- with a router, `<object>-<namespace>-router` and its `-routing-service` (AWS's DPD guide);
- aggregated and autoscaling, KEDA's ScaledObject `<object>-scaled-object`, whose name KEDA
  writes into the HPA's `app.kubernetes.io/part-of` label (kedacore/keda, hpa.go): at most 63.
With rollout newName, SageMaker's endpoint and model names carry the generation (at most 63).
"""

from components.core.findings import Finding, error
from components.core.kubernetes_names import NAME_MAX
from components.endpoint.generation import GENERATION_SUFFIX
from components.endpoint.routing import router_service
from components.endpoint.spec import EndpointSpec


def _derived(spec: EndpointSpec) -> list[tuple[str, str]]:
    obj = f"{spec.name}-g00000" if spec.renames else spec.name
    found = [("the object and its pods' app label", obj)]
    if spec.intelligent_routing:
        found.append(("the operator's routing Service", router_service(obj, spec.namespace)))
    if spec.serving is not None and spec.serving.autoscaling is not None:
        found.append(("KEDA's ScaledObject", f"{obj}-scaled-object"))
    return found


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
    found = []
    what, longest = max(_derived(spec), key=lambda found: len(found[1]))
    if len(longest) > NAME_MAX:
        renamed = f" (with rollout newName, -g<digest> adds {GENERATION_SUFFIX})"
        problem = (
            f"{spec.name!r} makes {what} {longest!r}, {len(longest)} characters, and Kubernetes "
            f"takes {NAME_MAX}: name may have at most {NAME_MAX - len(longest) + len(spec.name)} "
            f"characters here{renamed if spec.renames else ''}"
        )
        found.append(error("derived-name", "name", problem))
    elif not spec.name[0].isalpha():
        problem = (
            f"{spec.name!r} starts with a digit; the operator names a Service after it, and a "
            "Service's name starts with a letter"
        )
        found.append(error("derived-name", "name", problem))
    most = NAME_MAX - GENERATION_SUFFIX
    named = (("endpointName", spec.endpoint_name), ("modelName", spec.model_name))
    return found + [
        error(
            "sagemaker-name-length",
            field,
            f"{value!r} has {len(value)} characters; with rollout newName each generation "
            f"names its SageMaker {field.removesuffix('Name')} {value}-g<digest>, and SageMaker "
            f"takes {NAME_MAX}: it may have at most {most} (or set rollout: keepName)",
        )
        for field, value in named
        if spec.renames and spec.endpoint_name is not None and len(value) > most
    ]
