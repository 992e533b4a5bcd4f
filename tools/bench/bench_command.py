"""`hyperpod-dpd bench`: the Job that load-tests a live endpoint; `bench results` holds what it
measured against the prediction (results_command.py)."""

import argparse
import math
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from components.core.terminal_text import one_line
from components.core.user_files import replace_file, writable_problem
from components.endpoint.manifest import endpoint_generation, object_name
from components.endpoint.spec import EndpointSpec
from infra.config_errors import PROJECT
from infra.settings import CheckedConfig
from planner.efficiency import ENGINE_EFFICIENCY
from planner.endpoint_scenario import scenario_from_endpoint
from planner.measured import Load, corrected, scenario_at
from planner.predict import Prediction, predict
from planner.scenario import ScenarioError
from tools.bench.endpoint import (
    BenchError,
    CheckedStack,
    checked_endpoint,
    endpoint_load,
    endpoint_parser,
)
from tools.bench.job import bench_manifests, job_name, job_placement
from tools.bench.results_command import run_results
from tools.bench.vllm_bench import BenchRun, prompt_count
from tools.render import yaml_io

# More loads than this in one Job run for hours.
MOST_RATES = 12
# Beyond any endpoint HyperPod hosts.
MOST_RATE = 10_000.0
# The first line of every Job file: `--out` replaces a file that has it, and no other.
JOB_FILE_MARKER = (
    "# A load test of a hyperpod-dpd endpoint; `hyperpod-dpd bench --out` rewrites it.\n"
)


def _rates(text: str) -> list[float]:
    rates = []
    for part in text.split(","):
        try:
            rate = float(part)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{part.strip()!r} is not a number; give requests per second, e.g. 1.5,3,4.5"
            ) from None
        if not (math.isfinite(rate) and 0 < rate <= MOST_RATE):
            raise argparse.ArgumentTypeError(
                f"{part.strip()} is not a request rate; allowed: above 0, at most {MOST_RATE:g}"
            )
        rates.append(rate)
    if len(rates) > MOST_RATES:
        raise argparse.ArgumentTypeError(
            f"{len(rates)} rates; at most {MOST_RATES}, each runs for 5 minutes or more"
        )
    return rates


def add_bench_commands(
    commands: argparse._SubParsersAction,
    stack_arguments: Callable[[argparse.ArgumentParser], None],
    account_id: Callable[[str], str],
) -> argparse.ArgumentParser:
    bench = endpoint_parser(
        commands,
        "bench",
        "a Job that load-tests an endpoint with vllm bench serve; `bench results` holds what "
        "it measured against the prediction",
        stack_arguments,
    )
    bench.add_argument("--out", type=Path, help="write the manifest here instead of stdout")
    bench.add_argument(
        "--account-id",
        type=account_id,
        help="the AWS account, for the model bucket's default name (which holds it)",
    )
    bench.add_argument(
        "--rate",
        type=_rates,
        help="request rates to sweep, e.g. 1.5,3,4.5 (default: the workload's load)",
    )
    results = endpoint_parser(
        bench.add_subparsers(dest="action", metavar="results"),
        "results",
        "hold a vllm bench serve result against the prediction",
        stack_arguments,
    )
    # Options written before `results` (`bench --stack prod results`) hold: the subcommand's
    # defaults would otherwise overwrite them.
    for action in results._actions:
        if action.dest in ("stack", "config_file", "account", "endpoint"):
            action.default = argparse.SUPPRESS
    results.add_argument(
        "--result", type=Path, required=True, help="vLLM's result JSON, or the Job's log holding it"
    )
    results.add_argument(
        "--record",
        action="store_true",
        help="append the run to calibration/<stack>.yaml, which corrects the stack's "
        "predictions for the endpoint",
    )
    results.add_argument(
        "--yes",
        action="store_true",
        help="with --record: record a run measured more than 4 times from the prediction",
    )
    return bench


def _model_bucket(checked: CheckedConfig, stack: str, account_id: str | None) -> str | None:
    """The model bucket; its default name holds the account ID, which only the user knows."""
    configured = checked.stack.buckets.model.name
    if configured or account_id is None:
        return configured
    # settings._stack_prefix's rule, with the stack's name as the CLI has it.
    prefix = checked.stack.cluster.name or f"{PROJECT}-{stack}"
    return f"{prefix}-models-{account_id}"


def _bench_runs(checked: CheckedConfig, index: int, loads: list[Load]) -> list[BenchRun]:
    spec = checked.stack.endpoints[index]
    if spec.engine not in ENGINE_EFFICIENCY:
        # An engine the planner has no model of is measured all the same, against no prediction.
        return [BenchRun(load, prompt_count(load, None), None) for load in loads]
    scenario = scenario_from_endpoint(spec, checked.sizing[index].sizing.architecture)
    assert scenario is not None  # the load says the output tokens
    ep = checked.predictions[index]
    calibration = ep.calibration if ep else None
    runs = []
    for load in loads:
        at_load = scenario_at(scenario, load)
        prediction = corrected(predict(at_load), at_load, calibration)
        runs.append(BenchRun(load, prompt_count(load, prediction), prediction))
    return runs


def _predicted(prediction: Prediction | None) -> str:
    if prediction is None:
        return "no prediction (the planner has no model of this engine)"
    ttft = (
        f"TTFT {prediction.ttft_ms:,.0f} ms"
        if math.isfinite(prediction.ttft_ms)
        else "TTFT without bound"
    )
    past = " (past the layout's capacity)" if prediction.saturated else ""
    return f"predicted {ttft}, TPOT {prediction.tpot_ms:.3g} ms{past}"


def instructions(stack: str, spec: EndpointSpec, runs: list[BenchRun], file: str) -> list[str]:
    """What the Job does, and the commands (names shell-quoted) that run it and read it back."""
    job, ns = shlex.quote(f"job/{job_name(spec)}"), shlex.quote(spec.namespace)
    timeout = math.ceil(sum(run.seconds for run in runs) * 2 + 1200)
    log, file = shlex.quote(f"{job_name(spec)}.log"), shlex.quote(file)
    through = "its router" if spec.intelligent_routing else "a Service of its pods"
    return [
        f"vllm bench serve against {spec.name} through {through}, from vLLM 0.19.0's image, "
        f"{job_placement(spec).why}:",
        *(
            f"  {run.load.text()}: {run.prompts} prompts "
            f"(about {max(1, round(run.seconds / 60))} min); " + _predicted(run.prediction)
            for run in runs
        ),
        "Run it, read the result and hold it against the prediction:",
        f"  kubectl apply -f {file}",
        f"  kubectl wait --for=condition=complete {job} -n {ns} --timeout={timeout}s",
        f"  kubectl logs {job} -n {ns} > {log}",
        f"  hyperpod-dpd bench results --stack {shlex.quote(stack)} "
        f"--endpoint {shlex.quote(spec.name)} --result {log}",
        "  (add --record to correct the stack's predictions by it), then clean up:",
        f"  kubectl delete -f {file}",
    ]


def run_job(args: argparse.Namespace, checked_stack: CheckedStack) -> int:
    refused = args.out and writable_problem(args.out, JOB_FILE_MARKER)
    if refused:
        print(f"--out: {args.out}: {refused}", file=sys.stderr)
        return 2
    found = checked_endpoint(args, checked_stack)
    if found is None:
        return 2
    checked, index, spec = found
    try:
        load = endpoint_load(index, spec)
        loads = [Load(load.input_tokens, load.output_tokens, rate) for rate in args.rate or []]
        runs = _bench_runs(checked, index, loads or [load])
        bucket = _model_bucket(checked, args.stack, args.account_id)
        if spec.model_source.s3 and not spec.model_source.s3.bucket and bucket is None:
            raise BenchError(
                "--account-id: the Job reads the tokenizer from the model bucket, whose name "
                f"holds the account ID ({PROJECT}-{args.stack}-models-<account>); pass "
                '--account-id "$(aws sts get-caller-identity --query Account --output text)"'
            )
        # The live generation's object, whose name labels a colocated endpoint's pods.
        generation = endpoint_generation(spec, model_bucket=bucket, region=checked.region)
        manifests = bench_manifests(
            args.stack,
            spec,
            index,
            runs,
            model_bucket=bucket or "",
            region=checked.region,
            object_name=object_name(spec, generation),
        )
    except (BenchError, ScenarioError) as refused:
        print(refused, file=sys.stderr)
        return 2
    file = str(args.out) if args.out else f"{job_name(spec)}.yaml"
    lines = instructions(args.stack, spec, runs, file)
    document = (
        JOB_FILE_MARKER
        + "".join(f"# {one_line(line)}\n" for line in lines)
        + "---\n".join(yaml_io.dump(obj) for obj in manifests)
    )
    if args.out is None:
        print(document, end="")
        return 0
    try:
        replace_file(args.out, document)
    except OSError as failed:
        print(f"--out: {args.out}: cannot be written ({failed.strerror})", file=sys.stderr)
        return 2
    print(f"Wrote {args.out}.")
    print("\n".join(lines))
    return 0


def run_bench(args: argparse.Namespace, checked_stack: CheckedStack) -> int:
    if args.action is None:
        return run_job(args, checked_stack)
    stray = [flag for flag, value in (("--out", args.out), ("--rate", args.rate)) if value]
    if stray:
        print(
            f"bench results: {' and '.join(stray)} belong to `bench`, which writes the Job",
            file=sys.stderr,
        )
        return 2
    return run_results(args, checked_stack)
