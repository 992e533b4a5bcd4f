"""What the planner predicts for each endpoint with a workload, against its SLO: the one module
through which the program reaches the planner. It returns findings and never raises.

For an endpoint whose `workload` says its output tokens, the planner predicts TTFT, TPOT and
output tokens per second for the configured roles, engine and routing at the workload's
`requestsPerSecond` or `concurrency` (one client when neither is set), and again at the
autoscaling maxima when they are higher, since those are the most the endpoint can become.
When that layout misses `workload.slo` at its percentile, the finding names
`endpoints[i].workload` and gives the settings, at the endpoint's own tensorParallelSize, that
the planner predicts meet it: every setting it assumed, the instanceCount of a group too
short to hold it included, each as a `pulumi config set` command, so that applying them as
printed meets it without a cluster-fit refusal. Measured runs recorded beside the stack
(infra/calibration_runs.py) correct the predictions of their endpoint. A prediction is an
estimate: it warns, it never refuses.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.cluster.spec import MAX_INSTANCE_COUNT
from components.core.findings import Finding, field_path, warning
from components.core.units import GIB
from components.endpoint.spec import EndpointSpec, Slo
from components.model.architecture import ModelArchitecture
from components.pricing.cost import cost_per_million_output_tokens, gpus_hourly
from components.pricing.prices import PRICES, Price, PriceTable
from components.sizing.kv import gib_ceiling, size_endpoint
from infra.calibration_runs import RecordedRun, calibration_path, read_runs
from infra.cluster_fit import check_cluster_fit
from infra.stack_settings import StackSettings
from planner.endpoint_scenario import expert_parallel, scenario_from_endpoint
from planner.measured import Calibration, Load, MeasuredRun, calibrate, corrected, scenario_at
from planner.predict import Prediction, predict
from planner.recommend import Search, meets
from planner.scenario import RoleLayout, Scenario, ScenarioError


@dataclass(frozen=True)
class Suggestion:
    """Settings of the endpoint, each by its key, whose prediction meets the SLO, and the
    instance counts (keys under the project) the cluster needs to hold them."""

    settings: dict[str, int | str]
    prediction: Prediction
    cluster: dict[str, int] = field(default_factory=dict)

    def keyed(self, i: int) -> dict[str, int | str]:
        """Every setting by its key under the project: `endpoints[0].prefill.replicas`."""
        own = {f"endpoints[{i}].{key}": value for key, value in self.settings.items()}
        return own | self.cluster

    def text(self) -> str:
        """`prefill.replicas 2, decode.replicas 1 and decode.maxNumSeqs 128`."""
        pairs = [f"{key} {value}" for key, value in (self.settings | self.cluster).items()]
        return ", ".join(pairs[:-1]) + (" and " if len(pairs) > 1 else "") + pairs[-1]


@dataclass(frozen=True)
class EndpointPrediction:
    configured: Prediction
    # At the autoscaling maxima, when they exceed the configured replicas.
    at_maxima: Prediction | None
    slo: Slo | None
    # When the judged layout misses the SLO: what would meet it (None: nothing found).
    suggestion: Suggestion | None
    # USD an hour for the judged layout's GPUs, on demand; None without a price.
    hourly: float | None
    # The instance type's price it comes from: on EC2's rate, `hourly` is a lower bound.
    price: Price | None
    # The judged layout as a scenario, which the reports sweep over request rates.
    judged_scenario: Scenario
    # Requests per second offered: the workload's rate, or what its clients send (closed loop).
    # Beyond a layout's capacity its prediction's own rate is that capacity, not this.
    load: float
    # The measured runs every figure above is corrected by, if any.
    calibration: Calibration | None = None

    @property
    def judged(self) -> Prediction:
        """The layout held to the SLO: the autoscaling maxima if any, else the configured."""
        return self.at_maxima or self.configured

    @property
    def meets_slo(self) -> bool | None:
        return None if self.slo is None else meets(self.judged, self.slo)

    @property
    def capacity_share(self) -> float:
        """The load as a share of what the judged layout serves at most."""
        return self.load / self.judged.max_requests_per_second

    @property
    def cost_per_million_output_tokens(self) -> float | None:
        tokens = self.judged.output_tokens_per_second
        if self.hourly is None or tokens <= 0:
            return None
        return cost_per_million_output_tokens(self.hourly, tokens)


def at_rate(scenario: Scenario, rate: float) -> Scenario:
    workload = scenario.workload.model_copy(
        update={"requests_per_second": rate, "concurrency": None}
    )
    return scenario.model_copy(update={"workload": workload})


def applied(spec: EndpointSpec, settings: dict[str, int | str]) -> EndpointSpec:
    """`spec` with `settings` written in, each at its dotted key, as a user would."""
    document = spec.model_dump(by_alias=True, exclude_unset=True)
    for key, value in settings.items():
        *path, last = key.split(".")
        place = document
        for part in path:
            place = place.setdefault(part, {})
        place[last] = value
    return EndpointSpec.model_validate(document)


def _suggest(
    spec: EndpointSpec,
    architecture: ModelArchitecture,
    judged: Scenario,
    predictor: Callable[[Scenario], Prediction],
) -> Suggestion | None:
    """The fewest replicas at the endpoint's tensorParallelSize that meet the SLO, decoders
    first, then prefills, with each role's --max-num-seqs set to what it needs."""
    tp = spec.tensor_parallel_size
    layout = RoleLayout(tensor_parallel=tp, expert_parallel=expert_parallel(spec.worker_args, tp))
    search = Search(judged, predictor)
    if spec.aggregated:
        found = search.aggregated(layout)
    else:
        # The decoder's --max-num-seqs is held to the transfers the largest PD buffer that
        # fits beside its HBM share holds, lest the buffer the advice needs not fit.
        sizing = size_endpoint(spec, architecture)
        room = sizing.hbm.pd_buffer_room_bytes // GIB * GIB
        found = search.disaggregated(layout, room // sizing.typical_transfer.bytes_per_rank or 1)
    if found is None or not found.meets_slo:
        return None
    roles = found.prediction.roles
    settings: dict[str, int | str] = {"tensorParallelSize": tp}
    for role in roles:
        # The role's replicas (its autoscaling maximum, when it scales) and --max-num-seqs.
        name, replicas = role.name, role.replicas
        scaling = getattr(spec, name).autoscaling
        if scaling is None:
            settings[f"{name}.replicas"] = replicas
        else:
            settings[f"{name}.autoscaling.maxReplicas"] = replicas
            if scaling.min_replicas > replicas:
                settings[f"{name}.autoscaling.minReplicas"] = replicas
            if getattr(spec, name).replicas > replicas:
                settings[f"{name}.replicas"] = replicas
        settings[f"{name}.maxNumSeqs"] = role.max_num_seqs
    if spec.aggregated:
        return Suggestion(settings, found.prediction)
    # What the layout asks of the rest of the endpoint, lest applying it warn anew: a router
    # that spreads the prompts over several prefillers, and a PD buffer for every transfer
    # the decoder's --max-num-seqs can have in flight.
    if roles[0].replicas > 1 and spec.routing_strategy == "prefixaware":
        settings["routingStrategy"] = "roundrobin"
    sizing = size_endpoint(applied(spec, settings), architecture)
    transfer = sizing.typical_transfer
    if transfer.in_flight < sizing.decode_max_num_seqs:
        needed = gib_ceiling(sizing.decode_max_num_seqs * transfer.bytes_per_rank)
        settings["pdBufferSize"] = f"{needed // GIB}GiB"
    return Suggestion(settings, found.prediction)


def predict_endpoint(
    spec: EndpointSpec,
    architecture: ModelArchitecture,
    region: str,
    prices: PriceTable = PRICES,
    calibration: Calibration | None = None,
) -> EndpointPrediction | None:
    """None without a workload that says its output tokens; ScenarioError when the model
    can't predict the layout. With a calibration, every figure is corrected by it."""
    scenario = scenario_from_endpoint(spec, architecture)
    if scenario is None:
        return None

    def predictor(scenario: Scenario) -> Prediction:
        return corrected(predict(scenario), scenario, calibration)

    configured = predictor(scenario)
    at_maxima = None
    judged_scenario = scenario
    # An aggregated endpoint's serving role stands as the decoder, and its prefill is unused.
    most = (spec.prefill.max_replicas, spec.decoder.max_replicas)
    if most != (spec.prefill.replicas, spec.decoder.replicas):
        maxima = scenario_from_endpoint(
            spec, architecture, prefill_replicas=most[0], decode_replicas=most[1]
        )
        assert maxima is not None
        at_maxima, judged_scenario = predictor(maxima), maxima
    judged = at_maxima or configured
    slo = spec.workload.slo if spec.workload else None
    missed = slo is not None and not meets(judged, slo)
    return EndpointPrediction(
        configured=configured,
        at_maxima=at_maxima,
        slo=slo,
        suggestion=(_suggest(spec, architecture, judged_scenario, predictor) if missed else None),
        hourly=gpus_hourly(spec.instance_type, judged.gpus, region, prices),
        price=prices.price(spec.instance_type, region),
        judged_scenario=judged_scenario,
        load=scenario.workload.requests_per_second or judged.requests_per_second,
        calibration=calibration,
    )


# The cluster-fit refusals a group's instanceCount answers.
_SHORT_OF_NODES = {
    "not-enough-nodes",
    "not-enough-nodes-total",
    "autoscaling-beyond-az",
    "autoscaling-beyond-cluster",
}


def instance_counts(stack: StackSettings, i: int, fixed: EndpointSpec, region: str) -> dict:
    """The instanceCount, by key, of each group the cluster-fit checks find too short once
    `fixed` stands in endpoint i's place: raised a node at a time until none refuses."""
    if stack.cluster.existing is not None:
        return {}
    endpoints = [*stack.endpoints[:i], fixed, *stack.endpoints[i + 1 :]]
    before = stack.cluster.instance_groups
    keys = {
        field_path("cluster", "instanceGroups", g, "instanceCount"): g for g in range(len(before))
    }
    groups = list(before)
    while True:
        cluster = stack.cluster.model_copy(update={"instance_groups": groups})
        short = {
            keys[f.field]
            for f in check_cluster_fit(cluster, stack.network, endpoints, region)
            if f.code in _SHORT_OF_NODES and f.field in keys
        }
        short = {g for g in short if groups[g].instance_count < MAX_INSTANCE_COUNT}
        if not short:
            return {
                key: groups[g].instance_count for key, g in keys.items() if groups[g] != before[g]
            }
        for g in short:
            groups[g] = groups[g].model_copy(
                update={"instance_count": groups[g].instance_count + 1}
            )


def ms(value: float) -> str:
    return f"{value:,.0f} ms" if value >= 100 else f"{value:.3g} ms"


def slo_text(slo: Slo) -> str:
    limits = [("TTFT", slo.ttft_ms), ("inter-token latency (tpotMs)", slo.tpot_ms)]
    return ", ".join(
        f"p{slo.percentile} {name} <= {ms(limit)}" for name, limit in limits if limit is not None
    )


def layout(prediction: Prediction) -> str:
    """`prefill 1x8 GPU, decode 2x8 GPU`: each role's replicas and GPUs a replica."""
    return ", ".join(f"{r.name} {r.replicas}x{r.gpus // r.replicas} GPU" for r in prediction.roles)


def figures(prediction: Prediction, percentile: int = 90) -> str:
    """The SLO's own figures: TTFT and the inter-token latency at its percentile."""
    if prediction.saturated and not math.isfinite(prediction.ttft_ms):
        return (
            f"saturated: the layout serves at most {prediction.max_requests_per_second:.3g} "
            "requests per second, and beyond, the queue grows without bound"
        )
    return (
        f"p{percentile} TTFT {ms(prediction.ttft_at(percentile))}, p{percentile} inter-token "
        f"{ms(prediction.itl_at(percentile))}"
    )


def _advice(spec: EndpointSpec, i: int, ep: EndpointPrediction) -> str:
    found = ep.suggestion
    percentile = ep.slo.percentile if ep.slo else 90
    if found is None:
        return (
            f"no layout of up to 16 replicas a role at tensorParallelSize "
            f"{spec.tensor_parallel_size} meets it; `hyperpod-dpd plan recommend` searches "
            "other sizes"
        )
    nodes = math.ceil(found.prediction.gpus / GPU_INSTANCE_TYPES[spec.instance_type].gpus)
    *rest, last = [f"`pulumi config set --path '{k}' {v}`" for k, v in found.keyed(i).items()]
    return (
        f"to meet it ({figures(found.prediction, percentile)}; {found.prediction.gpus} GPUs, "
        f"{nodes} {spec.instance_type} nodes), run {', '.join(rest)} and {last}"
    )


def review_predictions(
    stack: StackSettings,
    i: int,
    architecture: ModelArchitecture,
    region: str,
    calibration: Calibration | None = None,
) -> tuple[EndpointPrediction | None, list[Finding]]:
    """Endpoint i's prediction and its findings, its advice with the instance counts the
    stack's cluster needs to hold it. It never raises: the planner advises, so
    nothing it lacks or gets wrong may stop `pulumi up`. A layout the model can't predict is a
    warning naming the key to change; a failure of the model itself is a warning too."""
    spec = stack.endpoints[i]
    try:
        ep = predict_endpoint(spec, architecture, region, calibration=calibration)
        if ep is not None and ep.suggestion is not None:
            fixed = applied(spec, ep.suggestion.settings)
            counts = instance_counts(stack, i, fixed, region)
            ep = replace(ep, suggestion=replace(ep.suggestion, cluster=counts))
    except ScenarioError as unpredictable:
        # Its message names the scenario's key (scenario.prefill.tensorParallel); the reason
        # after it is what the endpoint's user can act on. The scenario's instance type and
        # engine are the endpoint's; every other key is the workload's.
        key, _, reason = str(unpredictable).partition(": ")
        field = {"scenario.instanceType": "instanceType", "scenario.engine": "engine"}
        return None, [
            warning("no-prediction", field.get(key, "workload"), f"no prediction: {reason or key}")
        ]
    except Exception as failed:  # advice must never stop a deploy
        return None, [
            warning(
                "no-prediction",
                "workload",
                f"no prediction: the performance model failed ({type(failed).__name__}: "
                f"{failed}); the stack deploys without it. Please report this",
            )
        ]
    if ep is None or ep.slo is None or ep.meets_slo:
        return ep, []
    which = "at its autoscaling maxima" if ep.at_maxima else "as configured"
    calibrated = f" ({ep.calibration.label()})" if ep.calibration else ""
    return ep, [
        warning(
            "slo-missed",
            "workload",
            f"at {ep.load:.3g} requests per second ({ep.capacity_share:.0%} of what the layout "
            f"serves) the model{calibrated} predicts {figures(ep.judged, ep.slo.percentile)} "
            f"with {layout(ep.judged)} ({which}), missing the SLO ({slo_text(ep.slo)}); "
            f"{_advice(spec, i, ep)}. A prediction is an estimate: measure before you buy",
        )
    ]


def endpoint_calibration(
    spec: EndpointSpec, architecture: ModelArchitecture, runs: list[RecordedRun]
) -> Calibration | None:
    """The correction the endpoint's own runs make: those recorded for it, on its model, its
    instance type and its image, each predicted at its own load and layout. Never across
    models or instance types; another image is other software, whose speed is its own."""
    base = scenario_from_endpoint(spec, architecture)
    if base is None:
        return None
    own = [
        MeasuredRun(
            scenario_at(
                base,
                Load(
                    r.load.typical_input_tokens,
                    r.load.output_tokens,
                    r.load.requests_per_second,
                    r.load.concurrency,
                ),
                prefill_replicas=r.layout.prefill_replicas,
                decode_replicas=r.layout.decode_replicas,
                tensor_parallel=r.layout.tensor_parallel_size,
            ),
            r.date,
            r.measured.ttft_ms["mean"],
            r.measured.tpot_ms["mean"],
        )
        for r in runs
        if (r.endpoint, r.model, r.instance_type, r.image)
        == (spec.name, spec.model_name, spec.instance_type, spec.image)
    ]
    return calibrate(own)


def stack_calibrations(
    stack: str,
    endpoints: list[EndpointSpec],
    architectures: dict[int, ModelArchitecture],
) -> tuple[dict[int, Calibration | None], list[str]]:
    """Each endpoint's correction (by its index), and warnings: an unreadable file, runs the
    model can't hold against a prediction, or a correction held to its bounds. Never raises:
    a correction is advice."""
    runs, warnings = read_runs(stack)
    if not runs:
        return {}, warnings
    found: dict[int, Calibration | None] = {}
    for i, architecture in architectures.items():
        try:
            found[i] = endpoint_calibration(endpoints[i], architecture, runs)
        except Exception as failed:  # advice must never stop a deploy
            warnings.append(
                f"{calibration_path(stack).name}: the runs of endpoint {endpoints[i].name} can't "
                f"be compared with the model ({type(failed).__name__}: {failed}); its "
                "prediction is not corrected"
            )
            continue
        if found[i] is not None and found[i].bounded:
            warnings.append(
                f"{calibration_path(stack).name}: endpoint {endpoints[i].name}'s runs measured "
                f"{found[i].bounded}; the correction is held at {found[i].factors_text()}: "
                "check the runs (another load, layout or image?) before trusting either"
            )
    return found, warnings
