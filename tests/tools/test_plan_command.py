"""`hyperpod-dpd plan predict|recommend`: the JSON it prints and the one-line refusals."""

import json
import os

import pytest

from tools.cli import main

SCENARIO = """\
model: {name: llama-3.3-70b}
precision: fp8
instanceType: ml.p5.48xlarge
engine: vllm
prefill: {replicas: 1, tensorParallel: 8}
decode: {replicas: 1, tensorParallel: 8}
workload: {typicalInputTokens: 8192, outputTokens: 512, requestsPerSecond: 2}
"""
RECOMMEND = """\
model: {name: llama-3.3-70b}
instanceType: ml.p5.48xlarge
workload:
  typicalInputTokens: 8192
  outputTokens: 512
  requestsPerSecond: 2
  slo: {ttftMs: 2000, tpotMs: 50}
"""


def run(tmp_path, capsys, action, text, *flags):
    path = tmp_path / "scenario.yaml"
    path.write_text(text)
    status = main(["plan", action, "--scenario", str(path), *flags])
    out, err = capsys.readouterr()
    return status, out, err


def test_predict_prints_the_figures_as_json(tmp_path, capsys):
    status, out, _ = run(tmp_path, capsys, "predict", SCENARIO, "--json")
    document = json.loads(out)
    assert status == 0
    assert {"ttftMs", "tpotMs", "outputTokensPerSecond", "gpus"} <= set(document)
    assert document["gpus"] == 16 and document["mode"] == "disaggregated"
    assert document["outputTokensPerSecond"] == 1024


def test_predict_reads_as_a_summary_without_json(tmp_path, capsys):
    status, out, _ = run(tmp_path, capsys, "predict", SCENARIO)
    assert status == 0
    assert out.startswith("disaggregated: TTFT ")
    assert "KV hand-off" in out and "decode   1 x (TP 8) = 8 GPUs, " in out


def test_a_config_file_is_found_beside_the_scenario(tmp_path, capsys):
    config = {
        "hidden_size": 4096,
        "intermediate_size": 14336,
        "num_attention_heads": 32,
        "num_hidden_layers": 32,
        "num_key_value_heads": 8,
        "vocab_size": 128256,
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    text = SCENARIO.replace("{name: llama-3.3-70b}", "{configFile: config.json}")
    status, out, _ = run(tmp_path, capsys, "predict", text, "--json")
    assert status == 0 and json.loads(out)["ttftMs"]["mean"] > 0


def test_recommend_prints_both_roles_the_aggregated_layout_and_the_threshold(tmp_path, capsys):
    status, out, _ = run(tmp_path, capsys, "recommend", RECOMMEND, "--json")
    document = json.loads(out)
    assert status == 0
    for role in ("prefill", "decode"):
        assert {"replicas", "tensorParallel"} <= set(document[role])
    assert {"ttftMs", "tpotMs", "gpus", "costPerHour"} <= set(document["disaggregated"])
    assert document["aggregated"]["gpus"] <= document["disaggregated"]["gpus"]
    assert isinstance(document["disaggregationPays"], bool)
    assert "routingThreshold" in document


def test_recommend_prices_at_ec2_rates_as_lower_bounds_and_says_so(tmp_path, capsys):
    # No HyperPod rate in the committed table: ml.p5.48xlarge costs EC2's p5.48xlarge rate.
    status, out, _ = run(tmp_path, capsys, "recommend", RECOMMEND)
    assert status == 0
    assert "meets the SLO, at least $" in out
    assert (
        out.rstrip()
        .splitlines()[-1]
        .startswith("Costs at least: EC2 on-demand rates of the same hardware")
    )
    status, out, _ = run(tmp_path, capsys, "recommend", RECOMMEND, "--json")
    assert json.loads(out)["priceBasis"] == "ec2-on-demand"


@pytest.mark.parametrize(
    "text, says",
    [
        (
            SCENARIO.replace("fp8", "bf16").replace(
                "tensorParallel: 8}\nworkload", "tensorParallel: 1}\nworkload"
            ),
            "scenario.decode.tensorParallel: 1 x",
        ),
        (
            SCENARIO.replace("ml.p5.48xlarge", "ml.g4dn.xlarge"),
            "scenario.instanceType: 'ml.g4dn.xlarge' is not allowed; must be one of",
        ),
        (
            SCENARIO.replace("ml.p5.48xlarge", "ml.p4d.24xlarge"),
            "scenario: instanceType ml.p4d.24xlarge does not run DPD: prefill and decode need",
        ),
        (SCENARIO.replace("engine: vllm", "engine: ollama"), "scenario.engine:"),
        (
            SCENARIO.replace("precision: fp8", "precison: fp8"),
            "scenario.precison: is not a known setting (did you mean precision?)",
        ),
        (SCENARIO.replace("outputTokens: 512, ", ""), "scenario.workload.outputTokens: required"),
        ("- a list", "must be a mapping of scenario keys"),
        ("model: {", "is not valid YAML"),
    ],
)
def test_a_scenario_it_cannot_predict_is_one_line_and_exit_2(tmp_path, capsys, text, says):
    status, out, err = run(tmp_path, capsys, "predict", text)
    assert status == 2 and out == ""
    assert says in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("action", ["predict", "recommend"])
@pytest.mark.parametrize(
    ("workload", "says"),
    [
        ("typicalInputTokens: 8192, slo: {ttftMs: 1e308, tpotMs: 50}",
         "scenario.workload.slo.ttftMs: 1e+308 is not allowed; must be less than or equal to"),
        ("typicalInputTokens: 1000000000000, slo: {ttftMs: 2000, tpotMs: 50}",
         "scenario.workload.typicalInputTokens: 1000000000000 is not allowed"),
        # Within the bound but past the model's context: the workload's key, not the model's.
        ("typicalInputTokens: 200000, slo: {ttftMs: 2000, tpotMs: 50}",
         "scenario.workload.typicalInputTokens: 200,000 input and 512 output tokens"),
    ],
    ids=["slo-1e308", "1e12-tokens", "past-the-context"],
)  # fmt: skip
def test_out_of_bounds_inputs_name_their_own_key(tmp_path, capsys, action, workload, says):
    text = (
        "model: {name: llama-3.3-70b}\ninstanceType: ml.p5.48xlarge\n"
        f"workload: {{{workload}, outputTokens: 512, requestsPerSecond: 2}}\n"
    )
    status, out, err = run(tmp_path, capsys, action, text)
    assert status == 2 and out == "" and says in err and len(err.strip().splitlines()) == 1


def test_a_missing_scenario_file_is_named(tmp_path, capsys):
    status = main(["plan", "predict", "--scenario", str(tmp_path / "none.yaml")])
    assert status == 2
    assert "--scenario:" in capsys.readouterr().err


def test_recommend_without_an_slo_names_the_key(tmp_path, capsys):
    status, _, err = run(tmp_path, capsys, "recommend", SCENARIO)
    assert status == 2 and err.startswith("scenario.workload.slo: required")


def _fifo(folder):
    os.mkfifo(folder / "scenario.yaml")
    return folder / "scenario.yaml"


def _latin1(folder):
    (folder / "scenario.yaml").write_bytes("# caf\u00e9\n".encode("latin-1") + SCENARIO.encode())
    return folder / "scenario.yaml"


def _dated(folder):
    (folder / "scenario.yaml").write_text(SCENARIO + "when: 2026-12-01\n")
    return folder / "scenario.yaml"


@pytest.mark.parametrize(
    "make, says",
    [
        (_fifo, "scenario.yaml: is a named pipe (FIFO), not a file"),
        (_latin1, "scenario.yaml: is not UTF-8 text (byte 0xe9 at line 1, column 6;"),
        (_dated, "scenario.yaml:8:7: scenario.when: 2026-12-01 is a date to YAML"),
    ],
)
def test_a_scenario_file_is_read_as_stack_files_are(tmp_path, capsys, make, says):
    status = main(["plan", "predict", "--scenario", str(make(tmp_path))])
    err = capsys.readouterr().err
    assert status == 2 and f"--scenario: {tmp_path}/{says}" in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "model, says",
    [
        ("{configFile: /dev/zero}", "scenario.model.configFile: /dev/zero: is a character device"),
        ("{configFile: pipe.json}", "is a named pipe (FIFO), not a file"),
    ],
)
def test_a_config_file_that_is_no_file_stops_at_once_in_one_line(tmp_path, capsys, model, says):
    os.mkfifo(tmp_path / "pipe.json")
    text = SCENARIO.replace("{name: llama-3.3-70b}", model)
    status, out, err = run(tmp_path, capsys, "predict", text)
    assert status == 2 and out == "" and says in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "line, key",
    [
        ("speculativeDecoding: banana", "scenario.speculativeDecoding:"),
        ("speculativeDecoding: 'mtp\u00b2'", "scenario.speculativeDecoding:"),
        (f"speculativeDecoding: {'9' * 5000}", "scenario.speculativeDecoding:"),
    ],
)
def test_speculative_decoding_that_names_no_drafts_is_one_line(tmp_path, capsys, line, key):
    status, _, err = run(tmp_path, capsys, "predict", SCENARIO + line + "\n")
    assert status == 2 and key in err and len(err.strip().splitlines()) == 1


def test_predict_prints_the_percentiles_and_past_capacity_no_ttft(tmp_path, capsys):
    status, out, _ = run(tmp_path, capsys, "predict", SCENARIO)
    assert status == 0 and "TTFT mean " in out and ", median " in out and "p90 inter-token" in out
    flooded = SCENARIO.replace("requestsPerSecond: 2", "requestsPerSecond: 500")
    status, out, _ = run(tmp_path, capsys, "predict", flooded)
    assert status == 0 and out.startswith("disaggregated: saturated (no TTFT")
    status, out, _ = run(tmp_path, capsys, "predict", flooded, "--json")
    assert json.loads(out)["ttftMs"] == dict.fromkeys(("mean", "p50", "p90", "p95", "p99"))
