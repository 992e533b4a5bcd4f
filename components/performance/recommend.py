"""The cheapest disaggregated layout that meets a workload's SLO, by the model's own
prediction, beside the best aggregated layout on the same GPUs.

For each prefill and decode parallelism, the decode replicas are the fewest that keep TPOT
within the SLO, then the prefill replicas the fewest that keep TTFT within it. So a replica
fewer of either role would miss it. Cost is whole instances (pods of both roles share nodes)
at the on-demand price when one is given.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from components.performance.phases import kv_transfer_seconds, prefill_seconds
from components.performance.predict import Prediction, predict, system_of
from components.performance.queueing import md1_wait
from components.performance.scenario import RoleLayout, Scenario, ScenarioError

# The most GPUs a recommendation may use (16 instances).
MAX_GPUS = 128
# routingThreshold candidates: LMCache's 256-token chunks up to 128 Ki tokens.
THRESHOLD_STEP = 256
THRESHOLD_MAX = 131_072


@dataclass(frozen=True)
class Option:
    """A prediction with what it costs."""

    prediction: Prediction
    meets_slo: bool
    cost_per_hour: float | None

    def to_json(self) -> dict[str, object]:
        document = self.prediction.to_json()
        document["meetsSlo"] = self.meets_slo
        document["costPerHour"] = (
            None if self.cost_per_hour is None else round(self.cost_per_hour, 2)
        )
        return document


@dataclass(frozen=True)
class Recommendation:
    disaggregated: Option | None
    aggregated_same_gpus: Option | None
    cheapest_aggregated: Option | None
    # Prompts from this many tokens gain by the disaggregated path; None: none do.
    routing_threshold: int | None
    disaggregation_pays: bool
    verdict: str

    def to_json(self) -> dict[str, object]:
        disaggregated = self.disaggregated.to_json() if self.disaggregated else None
        return {
            "prefill": disaggregated["prefill"] if disaggregated else None,
            "decode": disaggregated["decode"] if disaggregated else None,
            "disaggregated": disaggregated,
            "aggregated": self.aggregated_same_gpus.to_json()
            if self.aggregated_same_gpus
            else None,
            "cheapestAggregated": self.cheapest_aggregated.to_json()
            if self.cheapest_aggregated
            else None,
            "disaggregationPays": self.disaggregation_pays,
            "routingThreshold": self.routing_threshold,
            "verdict": self.verdict,
        }


def _parallelisms(scenario: Scenario, base_dir: Path | None) -> list[RoleLayout]:
    """Layouts worth trying for one replica: tensor parallel within a node, and for MoE models
    expert parallel with tensor- or data-parallel attention; those that hold the weights."""
    moe = system_of(_aggregated(scenario, RoleLayout(tensor_parallel=8)), base_dir).deployment.moe
    layouts = [RoleLayout(tensor_parallel=tp) for tp in (1, 2, 4, 8, 16)]
    if moe:
        for gpus in (8, 16):
            layouts.append(RoleLayout(tensor_parallel=gpus, expert_parallel=gpus))
            layouts.append(
                RoleLayout(tensor_parallel=1, data_parallel_attention=gpus, expert_parallel=gpus)
            )
    fitting = []
    for layout in layouts:
        try:
            system_of(_aggregated(scenario, layout), base_dir)
        except ScenarioError:
            continue
        fitting.append(layout)
    if not fitting:
        raise ScenarioError(
            "scenario.model: no layout of up to 16 GPUs per replica holds its weights"
        )
    return fitting


def _aggregated(scenario: Scenario, layout: RoleLayout) -> Scenario:
    return scenario.model_copy(update={"serving": layout, "prefill": None, "decode": None})


def _disaggregated(scenario: Scenario, prefill: RoleLayout, decode: RoleLayout) -> Scenario:
    return scenario.model_copy(update={"serving": None, "prefill": prefill, "decode": decode})


class _Search:
    def __init__(self, scenario: Scenario, base_dir: Path | None, price: float | None) -> None:
        slo = scenario.workload.slo
        if slo is None or slo.ttft_ms is None or slo.tpot_ms is None:
            raise ScenarioError("scenario.workload.slo: required, with ttftMs and tpotMs")
        if scenario.workload.requests_per_second is None:
            raise ScenarioError(
                "scenario.workload.requestsPerSecond: required, the load to plan for"
            )
        self.scenario, self.base_dir, self.price = scenario, base_dir, price
        self.ttft_ms, self.tpot_ms = slo.ttft_ms, slo.tpot_ms

    def option(self, scenario: Scenario) -> Option:
        prediction = predict(scenario, self.base_dir)
        meets = (
            not prediction.saturated
            and prediction.ttft_ms <= self.ttft_ms
            and prediction.tpot_ms <= self.tpot_ms
        )
        cost = None if self.price is None else prediction.instances * self.price
        return Option(prediction, meets, cost)

    @staticmethod
    def rank(option: Option) -> tuple[float, ...]:
        prediction = option.prediction
        return (prediction.instances, prediction.gpus, prediction.ttft_ms + prediction.tpot_ms)

    def fewest(self, build, meets, role: int = -1) -> Option | None:
        """The option with the fewest replicas (1, 2, ...) of `role` that `meets` accepts,
        within MAX_GPUS for that role."""
        replicas = 1
        while True:
            scenario = build(replicas)
            option = self.option(scenario)
            if option.prediction.roles[role].gpus > MAX_GPUS:
                return None
            if meets(option):
                return option
            replicas += 1

    def fewest_decoders(self, decode: RoleLayout, roomy_prefill: RoleLayout) -> int | None:
        """The fewest decode replicas that keep TPOT within the SLO; TPOT depends on them
        alone, so a prefill role too large to queue stands in for the other."""

        def build(replicas: int) -> Scenario:
            return _disaggregated(self.scenario, roomy_prefill, replace_replicas(decode, replicas))

        def meets(option: Option) -> bool:
            decode_role = option.prediction.roles[1]
            unsaturated = decode_role.batch < decode_role.max_batch
            return option.prediction.tpot_ms <= self.tpot_ms and unsaturated

        found = self.fewest(build, meets)
        return None if found is None else found.prediction.roles[1].replicas

    def fewest_prefills(self, prefill: RoleLayout, decode: RoleLayout) -> Option | None:
        def build(replicas: int) -> Scenario:
            return _disaggregated(self.scenario, replace_replicas(prefill, replicas), decode)

        return self.fewest(build, lambda option: option.meets_slo, role=0)

    def disaggregated(self, layouts: list[RoleLayout]) -> Option | None:
        roomy_prefill = replace_replicas(layouts[-1], 64)
        candidates = []
        for decode in layouts:
            decoders = self.fewest_decoders(decode, roomy_prefill)
            if decoders is None:
                continue
            for prefill in layouts:
                option = self.fewest_prefills(prefill, replace_replicas(decode, decoders))
                if option is not None and option.prediction.gpus <= MAX_GPUS:
                    candidates.append(option)
        return min(candidates, key=self.rank) if candidates else None

    def aggregated_on(self, gpus: int, layouts: list[RoleLayout]) -> Option | None:
        options = [
            self.option(_aggregated(self.scenario, replace_replicas(layout, gpus // _gpus(layout))))
            for layout in layouts
            if gpus >= _gpus(layout)
        ]
        if not options:
            return None
        return min(options, key=lambda option: (not option.meets_slo, self._overshoot(option)))

    def cheapest_aggregated(self, layouts: list[RoleLayout]) -> Option | None:
        found = [
            self.fewest(
                lambda n, s=layout: _aggregated(self.scenario, replace_replicas(s, n)),
                lambda option: option.meets_slo,
            )
            for layout in layouts
        ]
        found = [option for option in found if option is not None]
        return min(found, key=self.rank) if found else None

    def _overshoot(self, option: Option) -> float:
        prediction = option.prediction
        return max(prediction.ttft_ms / self.ttft_ms, prediction.tpot_ms / self.tpot_ms)


def _gpus(layout: RoleLayout) -> int:
    return (layout.tensor_parallel or 1) * layout.data_parallel_attention


def replace_replicas(layout: RoleLayout, replicas: int) -> RoleLayout:
    return layout.model_copy(update={"replicas": replicas})


def routing_threshold(scenario: Scenario, base_dir: Path | None, option: Option) -> int | None:
    """The shortest prompt for which the disaggregated path costs the users less delay than
    prefilling on the decoder: there a prompt of L tokens stalls every running decode for its
    prefill; through the prefill role it waits in that role's queue and for the visible KV
    transfer. None: no prompt up to 128 Ki tokens gains."""
    system = system_of(scenario, base_dir)
    deployment = system.deployment
    prefill_role, decode_role = system.roles
    prediction = option.prediction
    batch = prediction.roles[1].batch
    rate = prediction.requests_per_second / prefill_role.replicas
    # The queue a prompt joins is the one the workload's typical prompts build: a short prompt
    # waits behind them as long as any other (M/D/1, the typical prompt as the service time).
    typical = prefill_seconds(
        deployment, prefill_role.parallelism, scenario.workload.typical_input_tokens or 1
    )
    wait = md1_wait(rate * typical, typical)
    # 0 routes every prompt the disaggregated way: even a one-token prompt gains.
    for tokens in (1, *range(THRESHOLD_STEP, THRESHOLD_MAX + 1, THRESHOLD_STEP)):
        local = prefill_seconds(deployment, decode_role.parallelism, tokens)
        remote = prefill_seconds(deployment, prefill_role.parallelism, tokens)
        transfer = kv_transfer_seconds(
            deployment, prefill_role.parallelism, decode_role.parallelism, tokens, remote
        )[1]
        if wait + remote + transfer <= local * (1 + batch):
            return 0 if tokens == 1 else tokens
    return None


def instances_phrase(count: int) -> str:
    return f"{count} instance" if count == 1 else f"{count} instances"


def _verdict(recommendation: Recommendation, ttft_ms: float, tpot_ms: float) -> str:
    disaggregated = recommendation.disaggregated
    aggregated = recommendation.cheapest_aggregated
    slo = f"TTFT <= {ttft_ms:g} ms and TPOT <= {tpot_ms:g} ms"
    if disaggregated is None and aggregated is None:
        return f"No layout of up to {MAX_GPUS} GPUs meets {slo} at this load."
    if disaggregated is None:
        return (
            f"Disaggregation does not pay: no disaggregated layout meets {slo}; aggregated "
            f"does with {aggregated.prediction.gpus} GPUs."
        )
    if aggregated is None:
        return (
            f"Disaggregation pays: only a disaggregated layout meets {slo} "
            f"({disaggregated.prediction.gpus} GPUs)."
        )
    d, a = disaggregated.prediction, aggregated.prediction
    sizes = (
        f"{d.gpus} GPUs ({instances_phrase(d.instances)}) disaggregated, "
        f"{a.gpus} ({instances_phrase(a.instances)}) aggregated"
    )
    if recommendation.disaggregation_pays:
        return f"Disaggregation pays: meeting {slo} takes {sizes}."
    return f"Disaggregation does not pay: meeting {slo} takes {sizes}."


def recommend(
    scenario: Scenario,
    base_dir: Path | None = None,
    *,
    price_per_instance_hour: float | None = None,
) -> Recommendation:
    """The cheapest disaggregated layout meeting `workload.slo` at `workload.requestsPerSecond`,
    the best aggregated one on the same GPUs, and the cheapest aggregated one."""
    search = _Search(scenario, base_dir, price_per_instance_hour)
    layouts = _parallelisms(scenario, base_dir)
    disaggregated = search.disaggregated(layouts)
    gpus = disaggregated.prediction.gpus if disaggregated else None
    same_gpus = search.aggregated_on(gpus, layouts) if gpus else None
    cheapest = search.cheapest_aggregated(layouts)
    pays = disaggregated is not None and (
        cheapest is None or _Search.rank(disaggregated)[:2] < _Search.rank(cheapest)[:2]
    )
    threshold = None
    if disaggregated is not None:
        chosen = _disaggregated(
            scenario,
            _layout_of(disaggregated.prediction, 0),
            _layout_of(disaggregated.prediction, 1),
        )
        threshold = routing_threshold(chosen, base_dir, disaggregated)
    recommendation = Recommendation(disaggregated, same_gpus, cheapest, threshold, pays, "")
    return replace(recommendation, verdict=_verdict(recommendation, search.ttft_ms, search.tpot_ms))


def _layout_of(prediction: Prediction, index: int) -> RoleLayout:
    role = prediction.roles[index]
    return RoleLayout(
        replicas=role.replicas,
        tensor_parallel=role.tensor_parallel,
        expert_parallel=role.expert_parallel,
        data_parallel_attention=role.data_parallel_attention,
    )
