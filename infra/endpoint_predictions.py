"""What the performance model predicts for each endpoint with a workload, against its SLO.

For an endpoint whose `workload` says its output tokens, the model (planner)
predicts TTFT, TPOT and output tokens per second for the configured roles at the workload's
`requestsPerSecond` or `concurrency` (one client when neither is set), and again at the
autoscaling maxima when they are higher, since those are the most the endpoint can become.
When that layout misses `workload.slo`, the finding names `endpoints[i].workload` and gives
the fewest replicas at the endpoint's own tensorParallelSize that meet it, and the cheapest
layout `plan recommend` finds. A prediction is an estimate: it warns, it never refuses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.core.findings import Finding, warning
from components.endpoint.spec import EndpointSpec, Slo
from components.model.architecture import ModelArchitecture
from components.pricing.cost import cost_per_million_output_tokens, gpus_hourly
from components.pricing.prices import PRICES, Price, PriceTable
from infra.calibration_runs import RecordedRun, calibration_path, read_runs
from planner.endpoint_scenario import scenario_from_endpoint
from planner.measured import Calibration, Load, MeasuredRun, calibrate, corrected, scenario_at
from planner.predict import Prediction, predict
from planner.recommend import Option, recommend
from planner.scenario import Scenario, ScenarioError

# The most replicas of a role the suggestion tries.
MOST_REPLICAS = 16


@dataclass(frozen=True)
class Suggestion:
    """The fewest replicas, at the endpoint's tensorParallelSize, whose prediction meets the
    SLO; replicas that autoscale are maxima."""

    prefill_replicas: int
    decode_replicas: int
    prediction: Prediction


@dataclass(frozen=True)
class EndpointPrediction:
    configured: Prediction
    # At the autoscaling maxima, when they exceed the configured replicas.
    at_maxima: Prediction | None
    slo: Slo | None
    # When the judged layout misses the SLO: what would meet it (None: nothing found).
    suggestion: Suggestion | None
    recommended: Option | None
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
    def cost_per_million_output_tokens(self) -> float | None:
        tokens = self.judged.output_tokens_per_second
        if self.hourly is None or tokens <= 0:
            return None
        return cost_per_million_output_tokens(self.hourly, tokens)


def meets(prediction: Prediction, slo: Slo) -> bool:
    """At the SLO's percentile: TTFT, and the time between tokens (inter-token latency)."""
    if prediction.saturated:
        return False
    ttft_ok = slo.ttft_ms is None or prediction.ttft_at(slo.percentile) <= slo.ttft_ms
    return ttft_ok and (slo.tpot_ms is None or prediction.itl_at(slo.percentile) <= slo.tpot_ms)


def at_rate(scenario: Scenario, rate: float) -> Scenario:
    workload = scenario.workload.model_copy(
        update={"requests_per_second": rate, "concurrency": None}
    )
    return scenario.model_copy(update={"workload": workload})


def _predict(scenario: Scenario, calibration: Calibration | None) -> Prediction:
    return corrected(predict(scenario), scenario, calibration)


def _suggest(
    spec: EndpointSpec,
    architecture: ModelArchitecture,
    slo: Slo,
    calibration: Calibration | None = None,
) -> Suggestion | None:
    """The fewest GPUs meeting the SLO, then the lowest TTFT, over replica counts."""
    best: Suggestion | None = None
    for prefill in range(1, 2 if spec.aggregated else MOST_REPLICAS + 1):
        for decode in range(1, MOST_REPLICAS + 1):
            scenario = scenario_from_endpoint(
                spec, architecture, prefill_replicas=prefill, decode_replicas=decode
            )
            assert scenario is not None
            prediction = _predict(scenario, calibration)
            if not meets(prediction, slo):
                continue
            found = Suggestion(prefill, decode, prediction)
            if best is None or (prediction.gpus, prediction.ttft_ms) < (
                best.prediction.gpus,
                best.prediction.ttft_ms,
            ):
                best = found
            # More decoders only add GPUs from here.
            break
    return best


def _recommended(scenario: Scenario, rate: float, price: Price | None) -> Option | None:
    """plan recommend's cheapest layout of the endpoint's mode at the load, when it can
    search."""
    slo = scenario.workload.slo
    if slo is None or slo.ttft_ms is None or slo.tpot_ms is None:
        return None
    try:
        hourly = None if price is None else price.usd_per_hour
        found = recommend(at_rate(scenario, rate), price_per_instance_hour=hourly)
        return found.aggregated if scenario.serving is not None else found.disaggregated
    except ScenarioError:
        # A search the model can't run gives no layout; the replica suggestion still stands.
        return None


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
    configured = _predict(scenario, calibration)
    at_maxima = None
    judged_scenario = scenario
    # An aggregated endpoint's serving role stands as the decoder, and its prefill is unused.
    most = (spec.prefill.max_replicas, spec.decoder.max_replicas)
    if most != (spec.prefill.replicas, spec.decoder.replicas):
        maxima = scenario_from_endpoint(
            spec, architecture, prefill_replicas=most[0], decode_replicas=most[1]
        )
        assert maxima is not None
        at_maxima, judged_scenario = _predict(maxima, calibration), maxima
    judged = at_maxima or configured
    slo = spec.workload.slo if spec.workload else None
    missed = slo is not None and not meets(judged, slo)
    price = prices.price(spec.instance_type, region)
    load = scenario.workload.requests_per_second or judged.requests_per_second
    return EndpointPrediction(
        configured=configured,
        at_maxima=at_maxima,
        slo=slo,
        suggestion=_suggest(spec, architecture, slo, calibration) if missed and slo else None,
        recommended=_recommended(scenario, load, price) if missed else None,
        hourly=gpus_hourly(spec.instance_type, judged.gpus, region, prices),
        price=price,
        judged_scenario=judged_scenario,
        load=load,
        calibration=calibration,
    )


def ms(value: float) -> str:
    return f"{value:,.0f} ms" if value >= 100 else f"{value:.3g} ms"


def slo_text(slo: Slo) -> str:
    limits = [("TTFT", slo.ttft_ms), ("TPOT", slo.tpot_ms)]
    return ", ".join(
        f"p{slo.percentile} {name} <= {ms(limit)}" for name, limit in limits if limit is not None
    )


def layout(prediction: Prediction) -> str:
    """`prefill 1x8 GPU, decode 2x8 GPU`: each role's replicas and GPUs a replica."""
    return ", ".join(f"{r.name} {r.replicas}x{r.gpus // r.replicas} GPU" for r in prediction.roles)


def _key(spec: EndpointSpec, role: str) -> str:
    scales = getattr(spec, role).autoscaling is not None
    return f"{role}.autoscaling.maxReplicas" if scales else f"{role}.replicas"


def _figures(prediction: Prediction, percentile: int = 90) -> str:
    if prediction.saturated and not math.isfinite(prediction.ttft_ms):
        ttft = (
            f"saturated: the layout serves at most {prediction.max_requests_per_second:.3g} "
            "requests per second, and beyond, the queue grows without bound"
        )
    else:
        ttft = f"TTFT {ms(prediction.ttft_ms)} (p{percentile} {ms(prediction.ttft_at(percentile))})"
    return (
        f"{ttft}, TPOT {ms(prediction.tpot_ms)} (p{percentile} inter-token "
        f"{ms(prediction.itl_at(percentile))})"
    )


def _advice(spec: EndpointSpec, ep: EndpointPrediction) -> str:
    found = ep.suggestion
    if found is None:
        advice = (
            f"no layout of up to {MOST_REPLICAS} replicas a role at tensorParallelSize "
            f"{spec.tensor_parallel_size} meets it"
        )
    else:
        nodes = math.ceil(found.prediction.gpus / GPU_INSTANCE_TYPES[spec.instance_type].gpus)
        replicas = (
            f"{_key(spec, 'serving')} {found.decode_replicas}"
            if spec.aggregated
            else f"{_key(spec, 'prefill')} {found.prefill_replicas} and {_key(spec, 'decode')} "
            f"{found.decode_replicas}"
        )
        advice = (
            f"{replicas} would ({_figures(found.prediction)}; "
            f"{found.prediction.gpus} GPUs, {nodes} {spec.instance_type} nodes)"
        )
    option = ep.recommended
    if option is not None:
        roles = ", ".join(
            f"{r.name} {r.replicas} x TP{r.tensor_parallel}" for r in option.prediction.roles
        )
        advice += f"; plan recommend's cheapest layout: {roles} ({option.prediction.gpus} GPUs)"
    return advice


def prediction_findings(spec: EndpointSpec, ep: EndpointPrediction) -> list[Finding]:
    """A warning on `workload` when the judged layout misses the SLO; fields are relative to
    the endpoint."""
    if ep.slo is None or ep.meets_slo:
        return []
    judged = ep.judged
    which = "at its autoscaling maxima" if ep.at_maxima else "as configured"
    return [
        warning(
            "slo-missed",
            "workload",
            f"at {ep.load:.3g} requests per second the model"
            + (f" ({ep.calibration.label()})" if ep.calibration else "")
            + " predicts "
            f"{_figures(judged, ep.slo.percentile)} with {layout(judged)} ({which}), missing "
            f"the SLO ({slo_text(ep.slo)}); {_advice(spec, ep)}. A prediction is an estimate: "
            "measure before you buy",
        )
    ]


def review_predictions(
    spec: EndpointSpec,
    architecture: ModelArchitecture,
    region: str,
    calibration: Calibration | None = None,
) -> tuple[EndpointPrediction | None, list[Finding]]:
    """The endpoint's prediction and its findings. It never raises: the planner advises, so
    nothing it lacks or gets wrong may stop `pulumi up`. A layout the model can't predict is a
    warning naming the key to change; a failure of the model itself is a warning too."""
    try:
        ep = predict_endpoint(spec, architecture, region, calibration=calibration)
    except ScenarioError as unpredictable:
        # Its message names the scenario's key (scenario.prefill.tensorParallel); the reason
        # after it is what the endpoint's user can act on. An instance type the model has no
        # figures for is the endpoint's instanceType; every other key is the workload's.
        key, _, reason = str(unpredictable).partition(": ")
        field = "instanceType" if key == "scenario.instanceType" else "workload"
        return None, [warning("no-prediction", field, f"no prediction: {reason or key}")]
    except Exception as failed:  # advice must never stop a deploy
        return None, [
            warning(
                "no-prediction",
                "workload",
                f"no prediction: the performance model failed ({type(failed).__name__}: "
                f"{failed}); the stack deploys without it. Please report this",
            )
        ]
    if ep is None:
        return None, []
    return ep, prediction_findings(spec, ep)


def _measured(run: RecordedRun) -> MeasuredRun:
    load = run.load
    return MeasuredRun(
        date=run.date,
        endpoint=run.endpoint,
        model=run.model,
        instance_type=run.instance_type,
        image=run.image,
        prefill_replicas=run.layout.prefill_replicas,
        decode_replicas=run.layout.decode_replicas,
        tensor_parallel=run.layout.tensor_parallel_size,
        load=Load(
            load.typical_input_tokens,
            load.output_tokens,
            load.requests_per_second,
            load.concurrency,
        ),
        ttft_ms=run.measured.ttft_ms["mean"],
        tpot_ms=run.measured.tpot_ms["mean"],
    )


def endpoint_calibration(
    spec: EndpointSpec, architecture: ModelArchitecture, runs: list[RecordedRun]
) -> Calibration | None:
    """The correction the endpoint's own runs make: those recorded for it, on its model, its
    instance type and its image, each predicted at its own load and layout. Never across
    models or instance types; another image is other software, whose speed is its own."""
    own = [
        _measured(run)
        for run in runs
        if (run.endpoint, run.model, run.instance_type, run.image)
        == (spec.name, spec.model_name, spec.instance_type, spec.image)
    ]
    base = scenario_from_endpoint(spec, architecture)
    if not own or base is None:
        return None

    def scenario_of(run: MeasuredRun) -> Scenario:
        return scenario_at(
            base,
            run.load,
            prefill_replicas=run.prefill_replicas,
            decode_replicas=run.decode_replicas,
            tensor_parallel=run.tensor_parallel,
        )

    return calibrate(own, scenario_of)


def stack_calibrations(
    stack: str,
    endpoints: list[EndpointSpec],
    architectures: dict[int, ModelArchitecture],
) -> tuple[dict[int, Calibration | None], list[str]]:
    """Each endpoint's correction (by its index), and warnings: an unreadable file, or runs
    the model can't hold against a prediction. Never raises: a correction is advice."""
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
    return found, warnings
