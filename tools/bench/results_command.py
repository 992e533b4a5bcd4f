"""`hyperpod-dpd bench results`: vLLM's result (its JSON, or the bench Job's log) held against
what the model predicts at its load and layout; `--record` appends the runs to
`calibration/<stack>.yaml`, which corrects the stack's predictions (infra/calibration_runs.py)."""

import argparse
import math
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path

from components.core.user_files import (
    UnreadableFileError,
    UnwritableFileError,
    locked,
    read_text,
    replace_file,
    writable_problem,
)
from components.endpoint.spec import Slo
from infra import clock
from infra.calibration_runs import (
    CalibrationFile,
    CalibrationFileError,
    RecordedRun,
    calibration_path,
    load_calibration_file,
)
from infra.endpoint_predictions import layout
from infra.paths import ROOT
from infra.settings import CheckedConfig
from planner.endpoint_scenario import scenario_from_endpoint
from planner.measured import Calibration, corrected, scenario_at
from planner.predict import Prediction, predict
from planner.scenario import ScenarioError
from tools.bench.comparison import (
    RunLayout,
    check_result,
    comparison_rows,
    run_layout,
    slo_lines,
    table,
)
from tools.bench.endpoint import BenchError, CheckedStack, checked_endpoint, endpoint_load
from tools.bench.vllm_result import (
    MAX_RESULT_BYTES,
    ResultError,
    VllmResult,
    parse_result,
    result_documents,
)
from tools.render import yaml_io

# A run measured this many times slower or faster than predicted is checked before it corrects:
# the model's misses on the families it describes are a few tens of percent, its worst on young
# MoE kernels 4 to 6 times (docs/planning.md), so beyond 4 the run, more likely, is wrong.
FAR = 4.0
CALIBRATION_HEADER = (
    "# Benchmark runs of stack {stack}, appended by `hyperpod-dpd bench results --record`.\n"
    "# The program corrects each endpoint's predicted TTFT and TPOT by the runs of that endpoint\n"
    "# on its model, instance type and image (docs/operations.md, Is it as fast as predicted?).\n"
)


@dataclass(frozen=True)
class Compared:
    result: VllmResult
    run: RunLayout
    predicted: Prediction
    calibrated: Prediction | None


def _compare(
    checked: CheckedConfig, index: int, result: VllmResult, calibration: Calibration | None
) -> Compared:
    spec = checked.stack.endpoints[index]
    scenario = scenario_from_endpoint(spec, checked.sizing[index].sizing.architecture)
    assert scenario is not None  # the endpoint's load was found
    run = run_layout(result, spec)
    at_load = scenario_at(
        scenario,
        result.load(),
        prefill_replicas=run.prefill_replicas,
        decode_replicas=run.decode_replicas,
        tensor_parallel=run.tensor_parallel,
    )
    predicted = predict(at_load)
    calibrated = corrected(predicted, at_load, calibration) if calibration else None
    return Compared(result, run, predicted, calibrated)


def compared_lines(
    compared: Compared, calibration: Calibration | None, index: int, slo: Slo | None
) -> list[str]:
    result, predicted = compared.result, compared.predicted
    stated = "as the run states" if compared.run.stated else "the stack's: the result does not say"
    lines = [
        f"{result.where}: {result.load().text()}, run {result.date}",
        f"  {result.completed} completed, {result.failed} failed in {result.duration:,.0f} s; "
        f"{layout(predicted)} ({stated})",
    ]
    if predicted.saturated:
        lines.append(
            f"  the model says this load is past the layout's capacity "
            f"({predicted.max_requests_per_second:.3g} requests/s): its TTFT has no bound"
        )
    header = ["", "", "measured", "predicted", "error"]
    if compared.calibrated is not None and calibration is not None:
        header += ["calibrated", "error"]
    lines += table(comparison_rows(result, predicted, compared.calibrated), header)
    lines.append(
        "  The model predicts TTFT's and ITL's percentiles, and TPOT and end-to-end latency "
        "as means; ITL's mean is held against TPOT. Error: (predicted - measured) / measured."
    )
    if compared.calibrated is not None and calibration is not None:
        lines.append(f"  Calibrated: {calibration.label()}, {calibration.factors_text()}.")
    return lines + slo_lines(result, slo, index)


def far_from_prediction(compared: Compared) -> list[str]:
    """The means measured more than FAR times from the model's prediction, either way."""
    found = []
    for metric, predicted in (
        ("ttft", compared.predicted.ttft_ms),
        ("tpot", compared.predicted.tpot_ms),
    ):
        measured = compared.result.latency[metric]["mean"]
        if math.isfinite(predicted) and not 1 / FAR <= measured / predicted <= FAR:
            found.append(
                f"{compared.result.where}: mean_{metric}_ms: {measured:,.4g} ms measured is "
                f"{measured / predicted:.3g} times the {predicted:,.4g} ms the model predicts"
            )
    return found


def recorded_run(checked: CheckedConfig, index: int, compared: Compared) -> RecordedRun:
    spec = checked.stack.endpoints[index]
    result, run, load = compared.result, compared.run, compared.result.load()
    figures = {f"{metric}Ms": dict(stats) for metric, stats in result.latency.items()}
    return RecordedRun.model_validate(
        {
            "date": result.date,
            "started": result.started,
            "recorded": clock.utc_today().isoformat(),
            "endpoint": spec.name,
            "model": spec.model_name,
            "instanceType": spec.instance_type,
            "image": result.metadata.get("dpd_image", spec.image),
            "layout": {
                "prefillReplicas": run.prefill_replicas,
                "decodeReplicas": run.decode_replicas,
                "tensorParallelSize": run.tensor_parallel,
            },
            "load": {
                "typicalInputTokens": load.input_tokens,
                "outputTokens": load.output_tokens,
                "requestsPerSecond": load.requests_per_second,
                "concurrency": load.concurrency,
            },
            "measured": {
                "completed": result.completed,
                "failed": result.failed,
                "durationSeconds": result.duration,
                "requestThroughput": result.request_throughput,
                "outputThroughput": result.output_throughput,
                **figures,
            },
            "predicted": {
                "ttftMs": round(compared.predicted.ttft_ms, 1),
                "tpotMs": round(compared.predicted.tpot_ms, 2),
                "outputTokensPerSecond": round(compared.predicted.output_tokens_per_second, 1),
            },
        }
    )


def record(stack: str, runs: list[RecordedRun]) -> tuple[Path, int]:
    """Append the runs not recorded yet, one recording at a time; the file, and how many were
    new. CalibrationFileError when the file is no calibration file, OSError when it can't be
    written."""
    path = calibration_path(stack)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with locked(path):
            problem = writable_problem(path)
            if problem:
                raise UnwritableFileError(problem)
            existing = load_calibration_file(path)
            seen = {(run.endpoint, run.started) for run in existing.runs}
            new = [run for run in runs if (run.endpoint, run.started) not in seen]
            if new:
                document = CalibrationFile(runs=[*existing.runs, *new])
                dumped = document.model_dump(by_alias=True, exclude_none=True, mode="json")
                replace_file(path, CALIBRATION_HEADER.format(stack=stack) + yaml_io.dump(dumped))
    except UnwritableFileError as unfit:
        raise CalibrationFileError(f"{path}: {unfit}") from None
    return path, len(new)


def run_results(args: argparse.Namespace, checked_stack: CheckedStack) -> int:
    found = checked_endpoint(args, checked_stack)
    if found is None:
        return 2
    checked, index, spec = found
    try:
        workload = endpoint_load(index, spec)
        try:
            text = read_text(args.result, MAX_RESULT_BYTES)
        except UnreadableFileError as unreadable:
            raise ResultError(f"--result: {args.result}: {unreadable}") from None
        documents = result_documents(text, str(args.result))
        results = [parse_result(document, where) for where, document in documents]
        for result in results:
            check_result(result, spec, index, workload)
        ep = checked.predictions[index]
        calibration = ep.calibration if ep else None
        compared = [_compare(checked, index, result, calibration) for result in results]
    except (BenchError, ResultError, ScenarioError) as refused:
        print(refused, file=sys.stderr)
        return 2
    slo = spec.workload.slo if spec.workload else None
    print("\n\n".join("\n".join(compared_lines(c, calibration, index, slo)) for c in compared))
    if not args.record:
        return 0
    far = [line for c in compared for line in far_from_prediction(c)]
    if far and not args.yes:
        print(
            "\n".join(far)
            + "\n--record: a run this far from the model would correct every later prediction "
            "by as much; check the run (its endpoint, its load, its units), then record it "
            "with --record --yes",
            file=sys.stderr,
        )
        return 2
    try:
        path, new = record(args.stack, [recorded_run(checked, index, c) for c in compared])
    except CalibrationFileError as unfit:
        print(f"--record: {unfit}; fix or move it, then record again", file=sys.stderr)
        return 2
    except OSError as failed:
        print(f"--record: cannot write {failed.filename}: {failed.strerror}", file=sys.stderr)
        return 2
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    kept = len(compared) - new
    print(
        f"\nRecorded {new} run{'s' * (new != 1)} in {shown}"
        + (f" ({kept} already there)" if kept else "")
        + f"; `hyperpod-dpd plan --stack {shlex.quote(args.stack)}`, the render and "
        f"`pulumi preview` now correct {spec.name}'s predictions by them."
    )
    return 0
