"""An endpoint's serving mode: disaggregated (DPD, `pdSpec`) or aggregated (one `serving` role).
The operator reads the mode from the manifest alone ("the presence of pdSpec is what makes the
endpoint disaggregated"), so keys that only mean something with pdSpec are refused on an
aggregated endpoint rather than dropped. Fields are relative to the endpoint."""

from components.cluster.instance_types import DPD_INSTANCE_TYPES
from components.core.findings import Finding, error
from components.endpoint.spec import EndpointSpec

# The settings that write pdSpec, its DPD environment or its checks, by field name.
DPD_ONLY_FIELDS = ("prefill", "decode", "routing_threshold", "pd_buffer_size", "topology_spec")


def check_serving_mode(spec: EndpointSpec) -> list[Finding]:
    if spec.serving is not None:
        found = [
            error(
                "node-selector-on-aggregated",
                "serving.nodeSelector",
                "has nowhere to go: without pdSpec the CRD has no per-role nodeSelector, and its "
                "nodeAffinity cannot stand beside the instanceType the endpoint sets; instanceType "
                "picks the nodes",
            )
        ]
        if not spec.serving.node_selector:
            found = []
        return found + [
            error(
                "dpd-key-on-aggregated",
                EndpointSpec.model_fields[field].alias or field,
                "is a DPD setting, and this endpoint serves aggregated (it has serving:), so "
                "its manifest has no pdSpec for it to go in; remove it, or remove serving: "
                "to run DPD with prefill: and decode:",
            )
            for field in DPD_ONLY_FIELDS
            if field in spec.model_fields_set
        ]
    if spec.instance_type not in DPD_INSTANCE_TYPES:
        return [
            error(
                "dpd-instance-type",
                "instanceType",
                f"{spec.instance_type} does not run DPD, which moves the KV cache between pods "
                f"over EFA with GPU-Direct RDMA; allowed for DPD: "
                f"{', '.join(DPD_INSTANCE_TYPES)}, or serve aggregated on it with a serving: "
                "block in place of prefill: and decode:",
            )
        ]
    return []
