"""The scenario an endpoint's settings describe: its model, instance type, roles and workload.

The stack serves with vLLM; both roles run the endpoint's tensorParallelSize.
"""

from __future__ import annotations

from components.endpoint.spec import DpdEndpointSpec
from components.model.architecture import ModelArchitecture
from components.performance.scenario import RoleLayout, Scenario


def scenario_from_endpoint(
    spec: DpdEndpointSpec,
    architecture: ModelArchitecture,
    *,
    prefill_replicas: int | None = None,
    decode_replicas: int | None = None,
) -> Scenario | None:
    """The endpoint as a scenario, at its configured replicas unless given others (e.g. the
    autoscaling maxima); None without a workload that says the tokens per request.

    Without `typicalInputTokens` the prompts are taken at `routingThreshold`, the shortest that
    take the disaggregated path.
    """
    workload = spec.workload
    if workload is None or workload.output_tokens is None:
        return None
    if workload.typical_input_tokens is None:
        workload = workload.model_copy(
            update={"typical_input_tokens": max(spec.routing_threshold, 1)}
        )
    tp = spec.tensor_parallel_size
    return Scenario(
        model=architecture,
        instance_type=spec.instance_type,
        engine="vllm",
        prefill=RoleLayout(
            replicas=prefill_replicas or spec.prefill.replicas,
            tensor_parallel=tp,
            max_num_seqs=spec.prefill_max_num_seqs,
        ),
        decode=RoleLayout(
            replicas=decode_replicas or spec.decode.replicas,
            tensor_parallel=tp,
            max_num_seqs=spec.decode_max_num_seqs,
        ),
        workload=workload,
        gpu_memory_utilization=spec.decode_gpu_memory_utilization,
    )
