"""Predictions as the render, `size`, `plan --stack`, sizing.json and the PR comment show them."""

import dataclasses
import json
import re

import pytest

from components.endpoint.spec import EndpointSpec
from components.pricing.cost import usd
from components.sizing.endpoint_architecture import endpoint_architecture
from infra.endpoint_predictions import predict_endpoint
from tests.support import (
    aggregated_endpoint,
    config_file,
    dev_config,
    plan_in_full,
    price_table,
    settings_of,
    with_endpoints,
)
from tools.cli import main
from tools.reports.prediction_report import (
    latency_curve,
    prediction_brief,
    prediction_lines,
    prediction_table,
    predictions_markdown,
)


def squeezed(text: str) -> str:
    """Markdown table cells as GitHub reads them: the padding that aligns them dropped."""
    return re.sub(r" {2,}", " ", text)


def with_slo(**slo: float) -> dict:
    config = dev_config()
    config["hyperpod-dpd:endpoints"][0]["workload"]["slo"] = slo
    return config


def test_the_dev_stack_declares_a_workload_its_layout_is_predicted_to_meet(tmp_path, capsys):
    assert main(["render", "--stack", "dev", "--out", str(tmp_path)]) == 0
    summary = capsys.readouterr().out
    assert "  dpd-test: meets the SLO (p90 TTFT <= 2,000 ms, p90 inter-token" in summary
    assert re.search(
        r"p90 TTFT [\d,]+ ms, p90 inter-token [\d.]+ ms; at 3 requests per second, \d+%", summary
    )
    assert "  at least $110.08/h for its GPUs, at least $" in summary
    out = plan_in_full(tmp_path)
    assert "Predictions (performance model, an estimate):" in out
    assert (
        "    meets the SLO (p90 TTFT <= 2,000 ms, p90 inter-token latency (tpotMs) <= 50 ms)" in out
    )
    # The SLO's own percentile against its limit, and the load against what the layout serves.
    assert re.search(r"dpd-test: at 3 requests per second, \d+% of the [\d.]+ the layout", out)
    assert re.search(r"as configured .*: p90 TTFT [\d,]+ ms, p90 inter-token [\d.]+ ms; mean", out)
    assert "workload" not in out.split("Warnings", 1)[1]
    (endpoint,) = json.loads((tmp_path / "sizing.json").read_text())["endpoints"]
    prediction = endpoint["prediction"]
    assert prediction["requestsPerSecond"] == 3
    assert {"ttftMs", "tpotMs", "itlMs", "outputTokensPerSecond", "gpus"} <= prediction.keys()
    assert 0 < prediction["shareOfCapacity"] < 1
    assert prediction["meetsSlo"] is True
    assert prediction["slo"] == {"ttftMs": 2000, "tpotMs": 50, "percentile": 90}
    # Two ml.p5.48xlarge nodes' GPUs at EC2's rate for the hardware: HyperPod's is higher.
    assert (prediction["costPerHour"], prediction["priceBasis"]) == (110.08, "ec2-on-demand")
    assert prediction["costPerMillionOutputTokens"] > 0
    assert "; at least $110.08/h for its GPUs, at least $" in out
    # plan.md, which the PR comment carries, holds the table (and the charts, which
    # tests/tools/test_mermaid.py has Mermaid parse).
    plan = (tmp_path / "plan.md").read_text()
    assert re.search(
        r"\| dpd-test \| 3 \(\d+%\) \| prefill 1x8 GPU, decode 1x8 GPU \| p90 ", squeezed(plan)
    )
    assert "| >= $110.08 | >= $" in squeezed(plan)
    assert "Costs marked >= are at EC2's on-demand rates for the same hardware" in plan


def test_a_missed_slo_reaches_the_warnings_naming_the_workload():
    (warning,) = [w for w in settings_of(with_slo(ttftMs=1, tpotMs=50)).warnings if "workload" in w]
    assert warning.startswith("hyperpod-dpd:endpoints[0].workload: at 3 requests per second")
    assert (
        "missing the SLO (p90 TTFT <= 1 ms, p90 inter-token latency (tpotMs) <= 50 ms)" in warning
    )


def test_plan_stack_prints_each_endpoints_prediction_a_table_and_charts(capsys):
    assert main(["plan", "--stack", "dev"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("dpd-test: at 3 requests per second, ")
    assert (
        "| Endpoint | Requests/s (share of capacity) | Layout | TTFT ms (SLO's percentile) |"
        in (squeezed(out))
    )
    assert out.count("```mermaid\nxychart-beta\n") == 2


def test_plan_stack_json_gives_each_endpoints_prediction(capsys):
    assert main(["plan", "--stack", "dev", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["dpd-test"]["mode"] == "disaggregated"


def test_plan_of_a_stack_without_workloads_says_what_to_set(tmp_path, capsys):
    config = dev_config()
    del config["hyperpod-dpd:endpoints"][0]["workload"]
    assert main(["plan", "--config-file", config_file(tmp_path, config)]) == 0
    assert "set endpoints[i].workload with outputTokens" in capsys.readouterr().out


def test_size_shows_the_prediction_after_the_sizing(capsys):
    assert main(["size", "--stack", "dev"]) == 0
    out = capsys.readouterr().out
    assert out.index("recommended PD buffer") < out.index("dpd-test: at 3 requests per second")


@pytest.mark.parametrize(
    ("basis", "bound", "rates", "cell"),
    [
        ("hyperpod-on-demand", "", "", ""),
        # EC2's rate for the hardware is below HyperPod's: the costs are lower bounds.
        ("ec2-on-demand", "at least ", " (EC2's rates; HyperPod's are higher)", ">= "),
    ],
)
def test_with_a_price_the_lines_and_table_give_the_cost_of_a_million_output_tokens(
    basis, bound, rates, cell
):
    spec = EndpointSpec.model_validate(dev_config()["hyperpod-dpd:endpoints"][0])
    table = price_table({"us-west-2": {"ml.p5.48xlarge": 80.0}}, basis)
    ep = predict_endpoint(spec, endpoint_architecture(spec), "us-west-2", table)
    assert ep is not None and ep.cost_per_million_output_tokens is not None
    per_million = usd(ep.cost_per_million_output_tokens)
    lines = prediction_lines("dpd-test", ep)
    assert lines[-1].endswith(
        f"{bound}$160.00/h for its GPUs, {bound}{per_million} per million output tokens{rates}"
    )
    header, rule, row = prediction_table(["dpd-test"], [ep])
    assert squeezed(row).endswith(f"| {cell}$160.00 | {cell}{per_million} |")
    # Padded to one width a column, so a terminal reads it as a table too.
    assert len(header) == len(rule) == len(row)


def test_the_summary_of_a_missed_slo_names_the_settings_that_would_meet_it():
    config = with_slo(ttftMs=1000, tpotMs=50)
    spec = EndpointSpec.model_validate(config["hyperpod-dpd:endpoints"][0])
    ep = predict_endpoint(spec, endpoint_architecture(spec), "us-west-2")
    assert ep is not None and ep.suggestion is not None
    verdict, _, _, suggested = prediction_brief("dpd-test", ep)
    assert verdict.startswith("dpd-test: misses the SLO (p90 TTFT <= 1,000 ms")
    assert suggested == f"  would meet it with {ep.suggestion.text()}"
    assert "prefill.replicas 2" in suggested


def test_the_chart_sweeps_around_the_load_and_marks_it():
    config = with_slo(ttftMs=2000, tpotMs=50)
    spec = EndpointSpec.model_validate(config["hyperpod-dpd:endpoints"][0])
    ep = predict_endpoint(spec, endpoint_architecture(spec), "us-west-2")
    assert ep is not None
    curve = latency_curve("dpd-test", ep)
    assert curve.load == 3
    assert 3 in curve.requests_per_second
    assert min(curve.requests_per_second) < 3 < max(curve.requests_per_second)
    assert (curve.slo_ttft_ms, curve.slo_tpot_ms) == (2000, 50)


def test_endpoints_of_one_layout_each_chart_the_same_curve_under_their_own_name():
    config = with_slo(ttftMs=2000, tpotMs=50)
    spec = EndpointSpec.model_validate(config["hyperpod-dpd:endpoints"][0])
    ep = predict_endpoint(spec, endpoint_architecture(spec), "us-west-2")
    tighter = dataclasses.replace(ep, slo=ep.slo.model_copy(update={"ttft_ms": 1000}))

    text = "\n".join(predictions_markdown(["ep-one", "ep-two", "ep-three"], [ep, ep, tighter]))

    first, second, third = (
        text.index(f"_{name}: predicted") for name in ("ep-one", "ep-two", "ep-three")
    )
    assert text[second:third].replace("ep-two", "ep-one") == text[first:second]
    assert "the SLO, 1000 ms" in text[third:]
    assert "the SLO, 1000 ms" not in text[first:third]


ENGINE_IMAGES = {
    "sglang": "763104351884.dkr.ecr.us-west-2.amazonaws.com/sglang:server-amzn2023-sagemaker-cuda",
    "tgi": "763104351884.dkr.ecr.us-east-2.amazonaws.com/huggingface-pytorch-tgi-inference:"
    "2.4.0-tgi2.3.1-gpu-py311-cu124-ubuntu22.04-v2.0",
}


def _without_kv_cache(endpoint: dict) -> dict:
    """The KV cache is vLLM's alone (AWS's caching and routing page)."""
    return {key: value for key, value in endpoint.items() if key != "kvCache"}


def plan_json(tmp_path, capsys, **endpoint) -> dict:
    load = {"typicalInputTokens": 2000, "outputTokens": 512, "requestsPerSecond": 2}
    config = with_endpoints(_without_kv_cache(aggregated_endpoint(workload=load, **endpoint)))
    assert main(["plan", "--config-file", config_file(tmp_path, config), "--json"]) == 0
    return json.loads(capsys.readouterr().out)["dpd-test"]


def test_plan_stack_predicts_with_the_endpoints_engine_or_says_it_has_no_model(tmp_path, capsys):
    vllm = plan_json(tmp_path, capsys)
    sglang = plan_json(tmp_path, capsys, engine="sglang", image=ENGINE_IMAGES["sglang"])
    # SGLang's scheduler and overheads are its own: another prediction than vLLM's.
    assert sglang["ttftMs"] != vllm["ttftMs"] and sglang["tpotMs"] != vllm["tpotMs"]
    config = with_endpoints(_without_kv_cache(aggregated_endpoint(
        engine="tgi", image=ENGINE_IMAGES["tgi"], workload={"outputTokens": 512}
    )))  # fmt: skip
    assert main(["plan", "--config-file", config_file(tmp_path, config)]) == 0
    assert "endpoints[0].engine: no prediction: the planner has no model of tgi" in (
        capsys.readouterr().out
    )
