"""`hyperpod-dpd size`: each endpoint's sizing, as a table or as sizing.json."""

import json
from typing import Any

import pytest

from infra.paths import ROOT
from tests.support import config_file, dev_endpoint, plan_in_full, with_endpoints
from tools.cli import main


def endpoint_file(tmp_path, **changes: Any) -> str:
    return config_file(tmp_path, with_endpoints({**dev_endpoint(), **changes}, gpu_nodes=4))


def test_size_prints_the_dev_stack_table(capsys):
    assert main(["size"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("dpd-test: llama-3.3-70b on ml.p5.48xlarge, tensorParallelSize 8\n")
    assert "findings                none" in out


def test_size_json_prints_the_document_with_no_error_for_the_dev_stack(capsys):
    assert main(["size", "--stack", "dev", "--json"]) == 0
    (endpoint,) = json.loads(capsys.readouterr().out)["endpoints"]
    assert endpoint["kvBytesPerTokenPerRank"] == 40960
    assert endpoint["transfers"]["routingThreshold"]["inFlight"] == 51
    assert [f for f in endpoint["findings"] if f["level"] == "error"] == []


@pytest.mark.parametrize("as_json", [False, True])
def test_a_sizing_error_exits_2_after_printing_the_figures_that_explain_it(
    tmp_path, capsys, as_json
):
    path = endpoint_file(tmp_path, pdBufferSize="32GiB")
    assert main(["size", "--config-file", path, *(["--json"] if as_json else [])]) == 2
    out, err = capsys.readouterr()
    if as_json:
        (endpoint,) = json.loads(out)["endpoints"]
        assert endpoint["findings"][0]["code"] == "hbm-overcommitted"
    else:
        assert "    error hbm-overcommitted (pdBufferSize): 32 GiB does not fit" in out
    assert err.startswith("hyperpod-dpd:endpoints[0].pdBufferSize: 32 GiB does not fit")


def test_sizing_warnings_do_not_change_the_exit_status(tmp_path, capsys):
    assert main(["size", "--config-file", endpoint_file(tmp_path, pdBufferSize="4GiB")]) == 0
    assert "warning pd-buffer-below-max-num-seqs (pdBufferSize)" in capsys.readouterr().out


def test_other_invalid_configuration_exits_2_with_its_problem_lines_only(tmp_path, capsys):
    path = endpoint_file(tmp_path, routingThreshold=-1)
    assert main(["size", "--config-file", path, "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines() == [
        "hyperpod-dpd:endpoints[0].routingThreshold: -1 is not allowed; "
        "must be greater than or equal to 0"
    ]


def test_every_endpoint_gets_its_table(tmp_path, capsys):
    second = {
        **dev_endpoint(),
        "name": "dpd-small",
        "endpointName": "dpd-small",
        "modelName": "Llama-3.1-8B-Instruct",
    }
    config = with_endpoints(dev_endpoint(), second, gpu_nodes=4)
    assert main(["size", "--config-file", config_file(tmp_path, config)]) == 0
    out = capsys.readouterr().out
    assert "\n\ndpd-small: llama-3.1-8b on ml.p5.48xlarge" in out
    assert "warning model-under-70b (modelName)" in out


def test_a_missing_stack_file_exits_2(capsys):
    assert main(["size", "--stack", "nope"]) == 2
    assert "Pulumi.nope.yaml: no such stack config file" in capsys.readouterr().err


def test_the_render_writes_the_same_document_and_keeps_the_table(tmp_path, capsys):
    assert main(["size", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert main(["render", "--out", str(tmp_path)]) == 0
    assert json.loads((tmp_path / "sizing.json").read_text()) == printed
    assert "Sizing (decoder, per GPU and TP rank):\n  dpd-test: llama-3.3-70b" in plan_in_full(
        tmp_path
    )


def test_the_sizing_docs_show_what_size_prints_for_the_dev_stack(capsys):
    assert main(["size"]) == 0
    printed = capsys.readouterr().out
    assert f"For the dev stack:\n\n```\n{printed}```" in (ROOT / "docs" / "sizing.md").read_text()
