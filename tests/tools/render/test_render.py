"""The offline render: the program under mocks, and the files it writes."""

import contextlib
import io
import json
import os
import re
from pathlib import Path

import pytest
import yaml

from tests.support import (
    FIXTURES,
    aggregated_endpoint,
    config_file,
    dev_config,
    dev_endpoint,
    endpoint_configs,
    plan_in_full,
    render,
    with_endpoints,
)
from tools.cli import main
from tools.render.render_report import ENDPOINT_CONFIG_TYPE, kubernetes_objects


def test_the_dev_stack_renders_the_documented_example_field_for_field(dev_render):
    documented = yaml.safe_load((FIXTURES / "documented_example.yaml").read_text())
    documented["spec"]["modelSourceConfig"]["s3Storage"] = {
        "bucketName": "hyperpod-dpd-dev-models-123456789012",  # the stack's model bucket
        "region": "us-west-2",  # the stack's aws:region
    }
    # The one field added to the example: the model's metrics are scraped from vLLM's port, not
    # the CRD's default 8080 (AWS's KV-caching page: it must equal the containerPort).
    documented["spec"]["metrics"]["modelMetrics"] = {"port": 8000}
    (rendered,) = [o for o in kubernetes_objects(dev_render) if o["kind"] == documented["kind"]]
    # The example's names are kept (rollout keepName, components/endpoint/generation.py): a
    # label finds the object whatever it is named, and pulumi up waits for it to serve.
    documented["metadata"] |= {
        "labels": {"hyperpod-dpd/endpoint": "dpd-test"},
        "annotations": {
            "pulumi.com/waitFor": "jsonpath={.status.conditions[?(@.message=='DPD prefill and "
            "decode deployments are ready')]}"
        },
    }
    assert rendered == documented


def test_the_endpoint_is_registered_under_its_component_with_the_cluster_provider(dev_render):
    (config,) = dev_render.of_type(ENDPOINT_CONFIG_TYPE)
    (component,) = dev_render.of_type("hyperpod-dpd:endpoint:InferenceEndpoint")
    (provider,) = dev_render.of_type("pulumi:providers:kubernetes")
    assert config.parent == component.urn
    assert config.provider == provider.urn


def test_the_stack_exports_each_endpoint_address_generation_and_effective_args(dev_render):
    exported = dev_render.outputs["endpoints"]["default/dpd-test"]
    # The operator's router, whose name the endpoint keeps across changes.
    assert exported["routerUrl"] == (
        "http://dpd-test-default-routing-service.hyperpod-inference-system.svc.cluster.local:443"
    )
    assert exported["objectName"] == "dpd-test"
    assert exported["roleArgs"]["prefill"] == exported["roleArgs"]["decode"]
    assert exported["roleArgs"]["decode"][-2:] == ["--gpu-memory-utilization", "0.75"]


def test_several_endpoints_render_each_one():
    second = {
        **dev_endpoint(),
        "name": "dpd-long",
        "endpointName": "dpd-long",
        "routingThreshold": 8192,
        "prefill": {"replicas": 2, "gpus": 8},
        "routingStrategy": "roundrobin",
    }
    configs = endpoint_configs(render(with_endpoints(dev_endpoint(), second, gpu_nodes=5)))
    assert sorted(
        (c["metadata"]["labels"]["hyperpod-dpd/endpoint"], c["spec"]["pdSpec"]["routingThreshold"])
        for c in configs
    ) == [("dpd-long", 8192), ("dpd-test", 4096)]


@pytest.fixture(scope="module")
def dev_command(tmp_path_factory) -> tuple[Path, str]:
    """`hyperpod-dpd render --stack dev`, once for the module: where it wrote, and what it
    printed."""
    out = tmp_path_factory.mktemp("dev")
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        assert main(["render", "--stack", "dev", "--out", str(out)]) == 0
    return out, printed.getvalue()


def test_render_writes_manifests_resources_and_prints_a_summary(dev_command):
    tmp_path, out = dev_command
    (manifest,) = sorted((tmp_path / "manifests").iterdir())
    assert manifest.name == "default.inferenceendpointconfig.dpd-test.yaml"
    assert yaml.safe_load(manifest.read_text())["kind"] == "InferenceEndpointConfig"
    resources = json.loads((tmp_path / "resources.json").read_text())
    assert {"type", "name", "parent", "dependencies", "inputs"} <= resources[0].keys()
    assert "default/dpd-test" in out
    assert "PD buffer 8 GiB" in (tmp_path / "plan.md").read_text()
    # What the nodes cost, group by group, and sizing.json the same for the PR comment.
    assert "Cost (on demand in us-west-2" in out
    assert "  p5-dpd  2 x ml.p5.48xlarge" in out
    cost = json.loads((tmp_path / "sizing.json").read_text())["cost"]
    assert [(g["name"], g["count"], g["gpu"]) for g in cost["groups"]] == [
        ("p5-dpd", 2, True),
        ("system", 1, False),
    ]


def test_render_of_invalid_config_exits_2_with_one_line_per_problem_and_writes_nothing(
    tmp_path, capsys
):
    config = dev_config()
    config["hyperpod-dpd:endpoints"][0] |= {"routingThreshold": -1, "tensorParallelSize": 3}
    out = tmp_path / "out"
    assert main(["render", "--config-file", config_file(tmp_path, config), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "hyperpod-dpd:endpoints[0].tensorParallelSize: 3 is not allowed; must be 1, 2, 4 or 8",
        "hyperpod-dpd:endpoints[0].routingThreshold: -1 is not allowed; "
        "must be greater than or equal to 0",
    ]
    assert not out.exists()


def test_render_of_a_missing_stack_file_exits_2(tmp_path, capsys):
    assert main(["render", "--stack", "nope", "--out", str(tmp_path / "o")]) == 2
    assert "Pulumi.nope.yaml: no such stack config file" in capsys.readouterr().err


def test_a_hugging_face_token_from_a_secret_config_key_stays_masked():
    endpoint = {
        **dev_endpoint(),
        "modelSource": {
            "huggingFace": {
                "modelId": "meta-llama/Llama-3.3-70B-Instruct",
                "tokenConfigKey": "hfToken",
            }
        },
    }
    result = render(with_endpoints(endpoint, **{"hyperpod-dpd:hfToken": {"secure": "v1:xyz"}}))
    (secret,) = result.of_type("kubernetes:core/v1:Secret")
    assert secret.inputs["stringData"] == {"token": "[secret]"}
    assert "v1:xyz" not in json.dumps([r.as_json() for r in result.resources])


def test_render_refuses_an_add_on_older_than_operator_3_2_naming_the_key_and_the_minimum(
    tmp_path, capsys
):
    config = dev_config()
    config["hyperpod-dpd:operator"] = {"addonVersion": "v1.2.1-eksbuild.1"}
    out = tmp_path / "out"
    assert main(["render", "--config-file", config_file(tmp_path, config), "--out", str(out)]) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "hyperpod-dpd:operator.addonVersion: v1.2.1-eksbuild.1 ships operator 3.1.3; DPD needs "
        "operator 3.2 or later, which is add-on v1.3.0-eksbuild.1 or later"
    ]
    assert not out.exists()


def test_the_summary_fits_a_terminal_and_holds_what_a_user_acts_on(dev_command):
    folder, out = dev_command
    lines = out.splitlines()
    assert len(lines) <= 40
    assert max(len(line) for line in lines) <= 160
    for said in (
        "Resources (81): eks 3, node-addons 1, default/dpd-test 1,",
        "    address the router http://dpd-test-default-routing-service.hyperpod-inference-system",
        "  dpd-test: meets the SLO (p90 TTFT <= 2,000 ms,",
        "    at least $110.08/h for its GPUs, at least $",
        "Warnings (1):",
        "`pulumi stack output nextSteps`",
        f"In full, the sizing and cost notes too: {folder / 'plan.md'}, or --verbose",
        f"Wrote {folder}: resources.json, sizing.json, graph.mmd, plan.md, 1 manifest in",
    ):
        assert said in out
    assert re.search(r"p90 TTFT [\d,]+ ms, .*, \d+% of its capacity", out)


def test_verbose_prints_in_full_what_plan_md_keeps(dev_command, tmp_path):
    folder, _ = dev_command
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        assert main(["render", "--stack", "dev", "--out", str(tmp_path), "--verbose"]) == 0
    kept = plan_in_full(folder).replace(str(folder), str(tmp_path))
    assert printed.getvalue().startswith(kept)
    assert "Sizing (decoder, per GPU and TP rank):" in kept


def test_the_summary_says_which_operator_runs(dev_command):
    out = plan_in_full(dev_command[0])
    assert (
        "HyperPod Inference Operator 3.4 (EKS add-on amazon-sagemaker-hyperpod-inference "
        "v1.5.0-eksbuild.1), installed by this stack; DPD needs 3.2 or later"
    ) in out


def test_the_summary_says_where_the_dpd_dashboard_is(capsys, tmp_path):
    config = dev_config() | {"hyperpod-dpd:observability": {"enabled": True, "grafana": {}}}
    path = config_file(tmp_path, config)
    assert main(["render", "--config-file", path, "--out", str(tmp_path / "out")]) == 0
    out = plan_in_full(tmp_path / "out")
    grafana = re.search(r"  Grafana (https://g-[0-9a-f]{10}\.grafana-workspace\S+)", out)
    assert grafana is not None
    assert f"  DPD dashboard {grafana[1]}/d/hyperpod-dpd/hyperpod-dpd-endpoints" in out


def test_the_render_in_full_ends_with_what_to_run_after_pulumi_up_with_real_names(dev_command):
    out = plan_in_full(dev_command[0])
    after = out[out.index("After `pulumi up`") :]
    for line in (
        "  aws eks update-kubeconfig --name hyperpod-dpd-dev --region us-west-2",
        "  aws s3 sync Llama-3.3-70B-Instruct "
        "s3://hyperpod-dpd-dev-models-123456789012/Llama-3.3-70B-Instruct/ --exclude '.cache/*'",
        "  # default/dpd-test: wait until it serves (pulumi up has waited for it already)",
    ):
        assert line in after.splitlines()
    assert "--endpoint-name dpd-test --region us-west-2" in after
    assert "Amazon Managed Prometheus https://aps-workspaces.us-west-2.amazonaws.com/" in after


def _inference_addon_version(result) -> str:
    (addon,) = [
        r.inputs["addonVersion"]
        for r in result.of_type("aws:eks/addon:Addon")
        if r.inputs["addonName"] == "amazon-sagemaker-hyperpod-inference"
    ]
    return addon


def test_pulumi_config_exported_in_the_shell_does_not_reach_the_render(dev_render, monkeypatch):
    # The SDK reads PULUMI_CONFIG as stack config, for keys the stack file leaves unset;
    # offline, only the stack file counts.
    shipped = _inference_addon_version(dev_render)
    leftover = json.dumps({"hyperpod-dpd:operator": '{"addonVersion": "v1.3.0-eksbuild.1"}'})
    monkeypatch.setenv("PULUMI_CONFIG", leftover)
    assert shipped != "v1.3.0-eksbuild.1"
    assert _inference_addon_version(render(dev_config())) == shipped
    assert os.environ["PULUMI_CONFIG"] == leftover


def test_the_dev_stack_with_no_endpoints_renders_the_cluster_alone(tmp_path, capsys):
    config = dev_config()
    config["hyperpod-dpd:endpoints"] = []
    out = tmp_path / "out"
    assert main(["render", "--config-file", config_file(tmp_path, config), "--out", str(out)]) == 0
    assert not (out / "manifests").exists() or list((out / "manifests").iterdir()) == []
    assert json.loads((out / "sizing.json").read_text())["endpoints"] == []
    assert "claimed by no endpoint" in capsys.readouterr().out


def test_a_variable_read_from_a_secret_renders_with_the_pd_buffer_in_plan_md(tmp_path):
    config = dev_config()
    source = {"secretKeyRef": {"name": "hf", "key": "token"}}
    config["hyperpod-dpd:endpoints"][0]["environmentFrom"] = {"HF_TOKEN": source}
    out = tmp_path / "out"
    assert main(["render", "--config-file", config_file(tmp_path, config), "--out", str(out)]) == 0
    manifest = next(p for p in (out / "manifests").iterdir() if "inferenceendpointconfig" in p.name)
    variables = yaml.safe_load(manifest.read_text())["spec"]["worker"]["environmentVariables"]
    assert {"name": "HF_TOKEN", "valueFrom": source} in variables
    assert "PD buffer 8 GiB" in plan_in_full(out)


def test_an_aggregated_endpoint_renders_with_its_summary(tmp_path, capsys):
    config = with_endpoints(aggregated_endpoint())
    out = tmp_path / "out"
    assert main(["render", "--config-file", config_file(tmp_path, config), "--out", str(out)]) == 0
    (manifest,) = (out / "manifests").iterdir()
    assert "pdSpec" not in yaml.safe_load(manifest.read_text())["spec"]
    printed = capsys.readouterr().out
    assert "aggregated: serving 2x8 GPU, at most 16 GPUs, TP 8" in plan_in_full(out)
    assert "no router: reached through" in printed and "(app=" in printed
