"""The scenario an endpoint's settings describe: its model, instance type, engine, roles,
routing and workload.

Every role (prefill and decode, or an aggregated endpoint's serving role, the scenario's
`serving`) runs the endpoint's tensorParallelSize, spreads its experts over it with
`--enable-expert-parallel` in workerArgs, and takes its `--max-num-seqs` and
`--gpu-memory-utilization` from the roles' settings. A DPD endpoint moves its KV with LMCache's
PD backend, and its router keeps prompts shorter than `routingThreshold` on the decoders.
"""

from collections.abc import Sequence

from components.endpoint.flags import canonical_flag, flag_names
from components.endpoint.spec import EndpointSpec
from components.model.architecture import ModelArchitecture
from planner.efficiency import ENGINE_EFFICIENCY
from planner.scenario import RoleLayout, Scenario, ScenarioError, ScenarioWorkload

# vLLM's switch that spreads a MoE model's experts over the tensor-parallel GPUs.
EXPERT_PARALLEL_FLAG = "--enable-expert-parallel"


def expert_parallel(args: Sequence[str], tensor_parallel: int) -> int:
    """The experts' spread that `args` ask for: every GPU of the replica, or none."""
    named = {canonical_flag(name) for name in flag_names(args)}
    return tensor_parallel if EXPERT_PARALLEL_FLAG in named else 1


def scenario_from_endpoint(
    spec: EndpointSpec,
    architecture: ModelArchitecture,
    *,
    prefill_replicas: int | None = None,
    decode_replicas: int | None = None,
) -> Scenario | None:
    """The endpoint as a scenario, at its configured replicas unless given others (e.g. the
    autoscaling maxima: an aggregated endpoint's serving replicas are `decode_replicas`, its
    pods being the ones that decode); None without a workload that says the tokens per request.
    ScenarioError on `engine` when the planner has no model of the endpoint's engine.

    Without `typicalInputTokens` the prompts are taken at `routingThreshold`, the shortest that
    take the disaggregated path.
    """
    workload = spec.workload
    if workload is None or workload.output_tokens is None:
        return None
    if spec.engine not in ENGINE_EFFICIENCY:
        raise ScenarioError(
            f"scenario.engine: the planner has no model of {spec.engine}; it predicts "
            f"{', '.join(ENGINE_EFFICIENCY)} alone, so this endpoint gets no prediction"
        )
    if workload.typical_input_tokens is None:
        workload = workload.model_copy(
            update={"typical_input_tokens": max(spec.routing_threshold, 1)}
        )
    tp = spec.tensor_parallel_size

    def role(settings, replicas: int | None, max_num_seqs: int) -> RoleLayout:
        return RoleLayout(
            replicas=replicas or settings.replicas,
            tensor_parallel=tp,
            expert_parallel=expert_parallel([*spec.worker_args, *settings.args], tp),
            max_num_seqs=max_num_seqs,
        )

    if spec.serving is not None:
        roles = {"serving": role(spec.serving, decode_replicas, spec.serving_max_num_seqs)}
    else:
        roles = {
            "prefill": role(spec.prefill, prefill_replicas, spec.prefill_max_num_seqs),
            "decode": role(spec.decode, decode_replicas, spec.decode_max_num_seqs),
            "routing_threshold": spec.routing_threshold,
        }
    return Scenario(
        model=architecture,
        instance_type=spec.instance_type,
        engine=spec.engine,
        kv_connector="lmcache",
        **roles,
        workload=ScenarioWorkload.model_validate(workload.model_dump()),
        gpu_memory_utilization=spec.decode_gpu_memory_utilization,
    )
