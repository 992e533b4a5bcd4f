"""`hyperpod-dpd plan predict|recommend --scenario FILE [--json]`: the performance model on
a scenario file, as a readable summary or JSON. Exit 2 with one line naming the key when the
scenario can't be predicted."""

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from components.core.findings import field_path
from components.pricing.cost import usd
from components.pricing.prices import PRICES, Price, at_least, cited, ec2_caveat
from infra.config_errors import keyed_problem
from planner.endpoint_item import endpoint_item, nodes_needed
from planner.predict import Prediction, predict
from planner.recommend import (
    Option,
    Recommendation,
    instances_phrase,
    recommend,
)
from planner.scenario import Scenario, ScenarioError
from tools.render.yaml_io import YamlFileError, read_yaml_file

# A scenario is a screenful of YAML.
MAX_SCENARIO_BYTES = 2**20
# Prices are per region; a scenario without `region` is priced here.
DEFAULT_REGION = "us-east-1"


def add_plan_commands(commands: argparse._SubParsersAction) -> argparse.ArgumentParser:
    plan = commands.add_parser(
        "plan", help="predict TTFT, TPOT and throughput, or size prefill and decode for an SLO"
    )
    actions = plan.add_subparsers(dest="plan_command")
    for name, text in (
        ("predict", "predict a scenario's TTFT, TPOT and output tokens per second"),
        ("recommend", "the cheapest disaggregated layout meeting the scenario's workload.slo"),
    ):
        action = actions.add_parser(name, help=text)
        action.add_argument("--scenario", type=Path, required=True, help="scenario YAML file")
        action.add_argument("--json", action="store_true", help="print JSON")
        if name == "recommend":
            action.add_argument(
                "--emit-endpoint",
                action="store_true",
                help="print the winning layout as a hyperpod-dpd:endpoints item to paste",
            )
    return plan


def load_scenario(path: Path) -> Scenario:
    # Read as stack files are: regular files only, size-capped, what YAML holds refused in one
    # line (yaml_io).
    try:
        document = read_yaml_file(path, MAX_SCENARIO_BYTES)
    except YamlFileError as unfit:
        key = f" {field_path('scenario', *unfit.keys)}:" if unfit.keys else ""
        raise ScenarioError(f"--scenario: {unfit.where}:{key} {unfit.problem}") from None
    if not isinstance(document, dict):
        raise ScenarioError(f"--scenario: {path}: must be a mapping of scenario keys")
    try:
        return Scenario.model_validate(document)
    except ValidationError as invalid:
        first = invalid.errors()[0]
        # pydantic names the validator a field passes through (`function-after[...]`); the file
        # has no such key.
        loc = [str(part) for part in first["loc"] if not str(part).startswith("function-")]
        raise ScenarioError(keyed_problem(".".join(["scenario", *loc]), first, Scenario)) from None


def _role_line(role: dict[str, Any], name: str) -> str:
    noun, doing = ("prompt", "a pass") if name == "prefill" else ("request", "decoding")
    unit = f"{noun}{'s' * (role['batch'] != 1)} {doing}"
    optional = (("expertParallel", "EP"), ("dataParallelAttention", "DP-attention"))
    parallel = [f"TP {role['tensorParallel']}"]
    parallel += [f"{label} {role[key]}" for key, label in optional if key in role]
    return (
        f"  {name:8} {role['replicas']} x ({', '.join(parallel)}) = {role['gpus']} GPUs, "
        f"{role['batch']:g} {unit} (at most {role['maxBatch']})"
    )


def prediction_lines(prediction: Prediction, percentile: int = 90) -> list[str]:
    document = prediction.to_json()
    mode, ttft_ms, itl_ms = document["mode"], document["ttftMs"], document["itlMs"]
    p = f"p{percentile}"
    if ttft_ms["mean"] is None:
        ttft = "saturated (no TTFT: past its capacity the queue grows without bound)"
    else:
        ttft = f"TTFT mean {ttft_ms['mean']:g} ms, median {ttft_ms['p50']:g}, {p} {ttft_ms[p]:g}"
    lines = [
        f"{mode}: {ttft}; TPOT mean {document['tpotMs']['mean']:g} ms, {p} inter-token "
        f"{itl_ms[p]:g} ms; {document['outputTokensPerSecond']:g} output tokens/s "
        f"({document['requestsPerSecond']:g} requests/s, "
        f"{prediction.requests_per_second / prediction.max_requests_per_second:.0%} of the "
        f"{document['maxRequestsPerSecond']:g} it serves) on {prediction.gpus} GPUs "
        f"({instances_phrase(prediction.instances)})",
    ]
    if ttft_ms["mean"] is not None:
        handoff = (
            f" + KV hand-off {document['kvTransferMs']:g} ms" if prediction.disaggregated else ""
        )
        lines.append(
            f"  mean TTFT = queue {document['queueMs']:g} ms + prefill and the first token's "
            f"floor {document['prefillMs']:g} ms{handoff}"
        )
    lines += [_role_line(document[role.name], role.name) for role in prediction.roles]
    if prediction.saturated:
        lines.append(
            f"  saturated: the layout serves at most {document['maxRequestsPerSecond']:g} "
            "requests/s; the queue grows past it"
        )
    return lines


def _option_lines(
    title: str, option: Option | None, price: Price | None, percentile: int
) -> list[str]:
    if option is None:
        return [f"{title}: none meets the SLO"]
    cost = "no price in the table"
    if option.cost_per_hour is not None and price is not None:
        cost = f"{at_least(price.lower_bound)}{usd(option.cost_per_hour)}/h"
    meets = "meets the SLO" if option.meets_slo else "misses the SLO"
    lines = prediction_lines(option.prediction, percentile)
    return [f"{title} ({meets}, {cost}):", *("  " + line for line in lines)]


def _threshold_lines(recommendation: Recommendation) -> list[str]:
    threshold = recommendation.routing_threshold
    if threshold is None:
        return ["routingThreshold: none; no prompt gains by the prefill role"]
    return [
        f"routingThreshold: {threshold}; prompts from this many tokens gain by the prefill role:",
        f"  {recommendation.threshold_reason}",
    ]


def recommendation_lines(recommendation: Recommendation, price: Price | None) -> list[str]:
    """`price`: the instance type's, which the costs are at."""
    p = recommendation.percentile
    return [
        *_option_lines("Cheapest disaggregated layout", recommendation.disaggregated, price, p),
        *_option_lines("Cheapest aggregated layout", recommendation.aggregated, price, p),
        recommendation.verdict,
        *(_threshold_lines(recommendation) if recommendation.disaggregated else []),
        *([f"Costs at least: {ec2_caveat([cited(price)])}"] if price and price.lower_bound else []),
    ]


def endpoint_lines(scenario: Scenario, recommendation: Recommendation, base_dir: Path) -> list[str]:
    item = endpoint_item(scenario, recommendation, base_dir)
    mode = "disaggregated" if "prefill" in item else "aggregated (serving: the colocated mode)"
    header = [
        f"# {mode}, as plan recommend predicted it; paste under hyperpod-dpd:endpoints in",
        "# Pulumi.<stack>.yaml, point modelSource at your weights, and give the cluster",
        f"# {nodes_needed(recommendation, 'prefill' in item)} {scenario.instance_type} node(s) "
        "for it "
        "(cluster.instanceGroups[i].instanceCount).",
    ]
    body = yaml.safe_dump([item], sort_keys=False, default_flow_style=False).splitlines()
    return header + body


def run_plan(args: argparse.Namespace) -> int:
    price = None
    try:
        scenario = load_scenario(args.scenario)
        base_dir = args.scenario.parent
        if args.plan_command == "predict":
            result: Prediction | Recommendation = predict(scenario, base_dir)
        else:
            price = PRICES.price(scenario.instance_type, scenario.region or DEFAULT_REGION)
            hourly = None if price is None else price.usd_per_hour
            result = recommend(scenario, base_dir, price_per_instance_hour=hourly)
    except ScenarioError as refused:
        print(refused, file=sys.stderr)
        return 2
    if getattr(args, "emit_endpoint", False):
        try:
            if args.json:
                print(json.dumps([endpoint_item(scenario, result, base_dir)], indent=2))
            else:
                print("\n".join(endpoint_lines(scenario, result, base_dir)))
        except ScenarioError as refused:
            print(refused, file=sys.stderr)
            return 2
        return 0
    if args.json:
        document = result.to_json()
        if isinstance(result, Recommendation):
            # ec2-on-demand: the costs are lower bounds, HyperPod's own rates being higher.
            document["priceBasis"] = None if price is None else price.basis
        print(json.dumps(document, indent=2))
    elif isinstance(result, Prediction):
        print("\n".join(prediction_lines(result)))
    else:
        print("\n".join(recommendation_lines(result, price)))
    return 0
