"""What every DPD InferenceEndpointConfig must hold, however it was written: the program checks
its manifests with these rules, and the policy pack every endpoint the engine sees, so they read
plain mappings, with no Pulumi or pydantic."""

from collections.abc import Mapping

from components.cluster.instance_types import DPD_INSTANCE_TYPES
from components.endpoint.environment import PD_BUFFER_SIZE, PINNED_ENV


def endpoint_violations(spec: Mapping) -> list[str]:
    """Why the `spec` of an InferenceEndpointConfig breaks DPD; empty when it has no pdSpec."""
    if "pdSpec" not in spec:
        return []
    problems = []
    instance_type = spec.get("instanceType")
    if instance_type not in DPD_INSTANCE_TYPES:
        found = f"{instance_type!r} is not allowed" if instance_type else "is not set"
        problems.append(f"instanceType: {found}; DPD runs only on {', '.join(DPD_INSTANCE_TYPES)}")
    worker = spec.get("worker") or {}
    # Only the DPD variables' values are read: in a preview, others may not be known yet.
    variables = {v.get("name"): v for v in worker.get("environmentVariables") or []}
    values = {n: variables[n].get("value") for n in (PD_BUFFER_SIZE, *PINNED_ENV) if n in variables}
    where = "worker.environmentVariables"
    if not values.get(PD_BUFFER_SIZE):
        problems.append(
            f"{where}: {PD_BUFFER_SIZE} is not set; DPD needs the decoder's buffer for "
            "incoming KV, in bytes per tensor-parallel rank"
        )
    for name, required in PINNED_ENV.items():
        if values.get(name) != required:
            found = f"is {values[name]!r}" if name in values else "is not set"
            problems.append(f"{where}: {name} {found}; DPD needs {name}={required}")
    topology = (spec.get("pdSpec") or {}).get("topologySpec") or {}
    if topology.get("sameAZ") is False:
        problems.append(
            "pdSpec.topologySpec.sameAZ: is false; prefill and decode must share an "
            "availability zone for the KV transfer over EFA"
        )
    return problems
