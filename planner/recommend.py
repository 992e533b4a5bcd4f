"""The cheapest layouts the stack can deploy that meet a workload's SLO, by the model's own
prediction, disaggregated and aggregated, and whether disaggregation pays.

Only layouts an endpoint deploys are searched: one `tensorParallelSize` of 1, 2, 4 or 8, at
most the GPUs of a node (each pod is one node), for both roles (the endpoint has one, and
LMCache's PD backend pairs each prefill rank with the decode rank of the same index:
`PDBackend.batched_submit_put_task` sends to `receiver_init_port[self.tp_rank]`, and its cache
keys carry the world size and rank), with expert parallelism over those GPUs for MoE models
(vLLM's `--enable-expert-parallel`), and no data-parallel attention (the endpoint refuses
`--data-parallel-size` above 1).

For each layout, the decode replicas are the fewest that keep the inter-token latency within
the SLO at its percentile, then the prefill replicas the fewest that keep TTFT within it; so
a replica fewer of either role would miss it. Each role's `--max-num-seqs` is then the
smallest power of two that holds its batch with room (the autoscaler's default target is
three quarters of it), and the prediction is made again with it. Cost is whole instances at
the on-demand price when one is given, else instances alone.
"""

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from components.cluster.instance_types import DPD_INSTANCE_TYPES, GPU_INSTANCE_TYPES
from components.endpoint.roles import OPERATOR_DECODE_MAX_NUM_SEQS, OPERATOR_PREFILL_MAX_NUM_SEQS
from components.endpoint.spec import GPU_MEMORY_UTILIZATION, Slo
from components.pricing.cost import cost_per_million_output_tokens
from planner.predict import Prediction, deployment_of, predict
from planner.scenario import RoleLayout, Scenario, ScenarioError
from planner.threshold import routing_threshold

# The most GPUs a recommendation may use (16 instances).
MAX_GPUS = 128
# What the endpoint's tensorParallelSize takes (components/endpoint/spec.py).
ENDPOINT_TENSOR_PARALLEL = (1, 2, 4, 8)
# A role's --max-num-seqs holds its predicted batch at most at this share: the decode
# autoscaler's default target (components/endpoint/autoscaling.py).
BATCH_SHARE = 0.75
# A prefill role that queues nothing: replicas enough never to hold the decoders back.
ROOMY_PREFILLS = 64
# Where HyperPod's DPD guide says disaggregation pays off, all of these holding: a dense model
# of 70B parameters or more, inputs over 4,000 tokens, more than 2 requests per second
# sustained, outputs over 256 tokens (the seed, DESIGN.md "DPD pays off only when").
ENVELOPE_PARAMETERS = 70e9
ENVELOPE_INPUT_TOKENS = 4000
ENVELOPE_REQUESTS_PER_SECOND = 2
ENVELOPE_OUTPUT_TOKENS = 256


@dataclass(frozen=True)
class Option:
    prediction: Prediction
    meets_slo: bool
    cost_per_hour: float | None

    def to_json(self) -> dict[str, object]:
        cost = None if self.cost_per_hour is None else round(self.cost_per_hour, 2)
        return self.prediction.to_json() | {"meetsSlo": self.meets_slo, "costPerHour": cost}

    @property
    def cost_key(self) -> tuple[float, ...]:
        """What ranks layouts: $/h (whole instances), then GPUs."""
        prediction = self.prediction
        return (self.cost_per_hour or prediction.instances, prediction.gpus)


@dataclass(frozen=True)
class Recommendation:
    disaggregated: Option | None
    aggregated: Option | None
    # Prompts from this many tokens gain by the prefill role; None: none do.
    routing_threshold: int | None
    disaggregation_pays: bool
    verdict: str
    # The SLO's percentile, which every figure is held at.
    percentile: int
    # What the threshold weighs, for the reader (routing.Threshold.explain).
    threshold_reason: str = ""

    def to_json(self) -> dict[str, object]:
        disaggregated = self.disaggregated.to_json() if self.disaggregated else None
        return {
            "prefill": disaggregated["prefill"] if disaggregated else None,
            "decode": disaggregated["decode"] if disaggregated else None,
            "disaggregated": disaggregated,
            "aggregated": self.aggregated.to_json() if self.aggregated else None,
            "disaggregationPays": self.disaggregation_pays,
            "routingThreshold": self.routing_threshold,
            "routingThresholdReason": self.threshold_reason,
            "percentile": self.percentile,
            "verdict": self.verdict,
        }


def _aggregated(scenario: Scenario, layout: RoleLayout) -> Scenario:
    return scenario.model_copy(update={"serving": layout, "prefill": None, "decode": None})


def _disaggregated(scenario: Scenario, prefill: RoleLayout, decode: RoleLayout) -> Scenario:
    return scenario.model_copy(update={"serving": None, "prefill": prefill, "decode": decode})


def with_replicas(layout: RoleLayout, replicas: int) -> RoleLayout:
    return layout.model_copy(update={"replicas": replicas})


def _layouts(scenario: Scenario, base_dir: Path | None) -> list[RoleLayout]:
    """Replica layouts the endpoint deploys that hold the model's weights and a request."""
    moe = deployment_of(scenario, base_dir).moe
    node_gpus = GPU_INSTANCE_TYPES[scenario.instance_type].gpus
    sizes = [tp for tp in ENDPOINT_TENSOR_PARALLEL if tp <= node_gpus]
    layouts = [RoleLayout(tensor_parallel=tp) for tp in sizes]
    if moe:
        layouts += [RoleLayout(tensor_parallel=tp, expert_parallel=tp) for tp in sizes]
    fitting, refusals = [], []
    for layout in layouts:
        try:
            predict(_aggregated(scenario, layout), base_dir)
        except ScenarioError as refused:
            refusals.append(refused)
            continue
        fitting.append(layout)
    if not fitting:
        # A refusal of the workload itself (a prompt too long for the model) is the key to
        # change, whatever the layout.
        workload = [r for r in refusals if str(r).startswith("scenario.workload")]
        raise (
            workload[-1]
            if workload
            else ScenarioError(
                f"scenario.model: no tensorParallelSize an endpoint takes on "
                f"{scenario.instance_type} ({', '.join(map(str, sizes))}) holds its weights and "
                "one request there"
            )
        )
    return fitting


class Search:
    """The fewest replicas of a layout meeting the scenario's SLO, each role's --max-num-seqs
    then set to what it needs. `predictor` makes the predictions (a corrected one, say)."""

    def __init__(
        self,
        scenario: Scenario,
        predictor: Callable[[Scenario], Prediction] = predict,
        price: float | None = None,
    ) -> None:
        self.scenario, self.predictor, self.price = scenario, predictor, price

    def option(self, scenario: Scenario) -> Option:
        prediction = self.predictor(scenario)
        cost = None if self.price is None else prediction.instances * self.price
        return Option(prediction, meets(prediction, self.scenario.workload.slo), cost)

    def fewest(self, build, accepts, role: int = -1) -> Option | None:
        """The option with the fewest replicas (1, 2, ...) of `role` that `accepts` takes,
        within MAX_GPUS for that role."""
        replicas = 1
        while True:
            option = self.option(build(replicas))
            if option.prediction.roles[role].gpus > MAX_GPUS:
                return None
            if accepts(option):
                return option
            replicas += 1

    def disaggregated(self, layout: RoleLayout, decode_seqs: int | None = None) -> Option | None:
        """`layout` for both roles, the decoders' --max-num-seqs at most `decode_seqs`."""
        roomy = with_replicas(layout, ROOMY_PREFILLS)
        decoder = layout.model_copy(update={"max_num_seqs": decode_seqs or layout.max_num_seqs})

        def decoding(option: Option) -> bool:
            # The prefill role, roomy here, is judged next: only what the decoders decide.
            ttft = dataclasses.replace(option.prediction, ttft_percentiles_ms=(0.0,) * 4)
            return meets(ttft, self.scenario.workload.slo)

        decoders = self.fewest(
            lambda n: _disaggregated(self.scenario, roomy, with_replicas(decoder, n)), decoding
        )
        if decoders is None:
            return None
        decode = with_replicas(decoder, decoders.prediction.roles[1].replicas)
        found = self.fewest(
            lambda n: _disaggregated(self.scenario, with_replicas(layout, n), decode),
            lambda option: option.meets_slo,
            role=0,
        )
        return None if found is None else self.settled(found)

    def aggregated(self, layout: RoleLayout) -> Option | None:
        found = self.fewest(
            lambda n: _aggregated(self.scenario, with_replicas(layout, n)),
            lambda option: option.meets_slo,
        )
        return None if found is None else self.settled(found)

    def settled(self, option: Option) -> Option:
        """`option` with each role's --max-num-seqs set to what it needs, predicted again."""
        roles = option.prediction.roles
        layouts = [_role_layout(option.prediction, i) for i in range(len(roles))]
        ceilings = [role.max_num_seqs for role in roles]
        while True:
            built = _disaggregated if len(layouts) == 2 else _aggregated
            settled = self.option(built(self.scenario, *layouts))
            if settled.meets_slo:
                return settled
            # Twice the --max-num-seqs, up to what the search allowed the role.
            grown = [
                layout.model_copy(update={"max_num_seqs": min(layout.max_num_seqs * 2, most)})
                for layout, most in zip(layouts, ceilings, strict=True)
            ]
            if grown == layouts:
                return option
            layouts = grown


def meets(prediction: Prediction, slo: Slo) -> bool:
    """At the SLO's percentile: TTFT, and the time between tokens (inter-token latency); a
    saturated layout meets none."""
    if prediction.saturated:
        return False
    ttft_ok = slo.ttft_ms is None or prediction.ttft_at(slo.percentile) <= slo.ttft_ms
    return ttft_ok and (slo.tpot_ms is None or prediction.itl_at(slo.percentile) <= slo.tpot_ms)


def _role_layout(prediction: Prediction, index: int) -> RoleLayout:
    role = prediction.roles[index]
    per_group = role.batch / role.data_parallel_attention
    floor = (
        OPERATOR_PREFILL_MAX_NUM_SEQS if role.name == "prefill" else OPERATOR_DECODE_MAX_NUM_SEQS
    )
    needed = max(floor, math.ceil(per_group / BATCH_SHARE))
    return RoleLayout(
        replicas=role.replicas,
        tensor_parallel=role.tensor_parallel,
        expert_parallel=role.expert_parallel,
        data_parallel_attention=role.data_parallel_attention,
        max_num_seqs=min(2 ** math.ceil(math.log2(needed)), role.max_num_seqs),
    )


def _cheapest(options: list[Option | None]) -> Option | None:
    found = [option for option in options if option is not None]
    return min(found, key=lambda o: (*o.cost_key, o.prediction.ttft_ms)) if found else None


def recommend(
    scenario: Scenario,
    base_dir: Path | None = None,
    *,
    price_per_instance_hour: float | None = None,
) -> Recommendation:
    """The cheapest disaggregated and aggregated layouts meeting `workload.slo` at
    `workload.requestsPerSecond`, and whether disaggregation pays."""
    if scenario.workload.requests_per_second is None:
        raise ScenarioError("scenario.workload.requestsPerSecond: required, the load to plan for")
    # A recommendation plans an endpoint: at the endpoints' memory share unless told.
    scenario = scenario.model_copy(
        update={"gpu_memory_utilization": scenario.utilization(GPU_MEMORY_UTILIZATION)}
    )
    slo = scenario.workload.slo
    if slo is None or slo.ttft_ms is None or slo.tpot_ms is None:
        raise ScenarioError("scenario.workload.slo: required, with ttftMs and tpotMs")
    search = Search(scenario, lambda s: predict(s, base_dir), price_per_instance_hour)
    layouts = _layouts(scenario, base_dir)
    # DPD runs only on its instance types; on the others only aggregated layouts are searched.
    dpd = scenario.instance_type in DPD_INSTANCE_TYPES
    disaggregated = _cheapest([search.disaggregated(layout) for layout in layouts]) if dpd else None
    aggregated = _cheapest([search.aggregated(layout) for layout in layouts])
    threshold, idle = None, False
    if disaggregated is not None:
        roles = (_role_layout(disaggregated.prediction, i) for i in (0, 1))
        chosen = _disaggregated(scenario, *roles)
        threshold = routing_threshold(chosen, base_dir, disaggregated.prediction)
        # Prompts under the threshold stay on the decoders: a threshold above the typical
        # prompt leaves the prefill role it sized almost nothing to do.
        idle = threshold is None or threshold.tokens > scenario.workload.typical_input_tokens
        if not idle:
            routed = chosen.model_copy(update={"routing_threshold": threshold.tokens})
            disaggregated = search.option(routed)
    cheaper = (
        disaggregated is not None
        and not idle
        and (aggregated is None or disaggregated.cost_key[0] < aggregated.cost_key[0])
    )
    outside = outside_envelope(scenario, base_dir)
    pays = cheaper and not outside
    text = verdict(search, disaggregated, aggregated, cheaper)
    if idle and aggregated is not None:
        rest = text.removeprefix("Aggregated: ")
        threshold_text = "none" if threshold is None else f"{threshold.tokens:,}"
        text = (
            f"Aggregated: a typical prompt of {scenario.workload.typical_input_tokens:,} tokens "
            "costs the decoders less than the trip through a prefill role (routingThreshold "
            f"{threshold_text}), which would get almost nothing to do. {rest[0].upper()}{rest[1:]}"
        )
    if cheaper and outside:
        text = (
            f"Aggregated: the workload is outside where HyperPod's DPD guide finds "
            f"disaggregation pays ({'; '.join(outside)}). By the model alone: "
            f"{text.removeprefix('Disaggregation pays: ')} Measure before you choose it."
        )
    return Recommendation(
        disaggregated,
        aggregated,
        None if threshold is None else threshold.tokens,
        pays,
        text,
        scenario.workload.slo.percentile,
        "" if threshold is None else threshold.explain(),
    )


def outside_envelope(scenario: Scenario, base_dir: Path | None = None) -> list[str]:
    """Which of the DPD guide's conditions the workload misses."""
    deployment = deployment_of(scenario, base_dir)
    workload = scenario.workload
    misses = []
    if deployment.moe:
        misses.append("a mixture-of-experts model, where the guide asks for a dense one")
    elif deployment.model.parameters < ENVELOPE_PARAMETERS:
        misses.append(
            f"{deployment.model.parameters / 1e9:.0f}B parameters, under the guide's "
            f"{ENVELOPE_PARAMETERS / 1e9:.0f}B"
        )
    if (workload.typical_input_tokens or 0) <= ENVELOPE_INPUT_TOKENS:
        misses.append(
            f"inputs of {workload.typical_input_tokens:,} tokens, not over "
            f"{ENVELOPE_INPUT_TOKENS:,}"
        )
    if (workload.requests_per_second or 0) <= ENVELOPE_REQUESTS_PER_SECOND:
        misses.append(
            f"{workload.requests_per_second:g} requests/s, not over {ENVELOPE_REQUESTS_PER_SECOND}"
        )
    if (workload.output_tokens or 0) <= ENVELOPE_OUTPUT_TOKENS:
        misses.append(
            f"outputs of {workload.output_tokens:,} tokens, not over {ENVELOPE_OUTPUT_TOKENS}"
        )
    return misses


def instances_phrase(count: int) -> str:
    return f"{count} instance" if count == 1 else f"{count} instances"


def _money(option: Option) -> str:
    if option.cost_per_hour is not None:
        return f"${option.cost_per_hour:,.2f}/h ({instances_phrase(option.prediction.instances)})"
    return instances_phrase(option.prediction.instances)


def verdict(
    search: Search, disaggregated: Option | None, aggregated: Option | None, pays: bool
) -> str:
    """Whether disaggregation pays, in money and in the SLO, with what it costs in TTFT."""
    limits = search.scenario.workload.slo
    p = limits.percentile
    slo = f"p{p} TTFT <= {limits.ttft_ms:g} ms and p{p} ITL <= {limits.tpot_ms:g} ms"
    if disaggregated is None and aggregated is None:
        return f"No layout of up to {MAX_GPUS} GPUs meets {slo} at this load."
    if search.scenario.instance_type not in DPD_INSTANCE_TYPES:
        return (
            f"Aggregated: {search.scenario.instance_type} does not run DPD; aggregated meets "
            f"{slo} on {_money(aggregated)}."
        )
    if disaggregated is None:
        return (
            f"Aggregated: no disaggregated layout meets {slo}; aggregated does on "
            f"{_money(aggregated)}."
        )
    if aggregated is None:
        return (
            f"Disaggregation pays: only a disaggregated layout meets {slo} "
            f"({_money(disaggregated)}); no aggregated one does at any size up to "
            f"{MAX_GPUS} GPUs, since prompts' chunks lengthen the decode steps they ride in."
        )
    d, a = disaggregated.prediction, aggregated.prediction
    ttft_cost = d.ttft_at(p) - a.ttft_at(p)
    longer = "longer" if ttft_cost >= 0 else "shorter"
    in_ttft = f"disaggregated's p{p} TTFT is {abs(ttft_cost):,.0f} ms {longer}"
    if not pays:
        return (
            f"Aggregated: disaggregated costs {_money(disaggregated)} against "
            f"{_money(aggregated)} aggregated to meet {slo}; {in_ttft}."
        )
    if disaggregated.cost_per_hour is None or aggregated.cost_per_hour is None:
        saving = f"{instances_phrase(a.instances - d.instances)} fewer than aggregated"
    else:
        hourly = aggregated.cost_per_hour - disaggregated.cost_per_hour
        per_million = cost_per_million_output_tokens(hourly, d.output_tokens_per_second)
        saving = (
            f"it saves ${hourly:,.2f}/h (${per_million:,.3f} per million output tokens) on "
            f"{_money(disaggregated)} against {_money(aggregated)}"
        )
    return f"Disaggregation pays: {saving} to meet {slo}; {in_ttft}."
