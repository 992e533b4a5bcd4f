"""Observability, per-role autoscaling and node autoscaling, through the whole program."""

import json
from typing import Any

import pytest

from tests.support import (
    config_file,
    dev_config,
    dev_endpoint,
    endpoint_configs,
    one,
    plan_in_full,
    problem_for,
    problems,
    render,
    settings_of,
    waits_for,
    with_endpoints,
)
from tools.cli import main

OBSERVED = {"hyperpod-dpd:observability": {"enabled": True}}
UNOBSERVED = {"hyperpod-dpd:observability": {"enabled": False}}
KEY = "hyperpod-dpd:endpoints[0]"


def scaling(prefill: dict[str, Any] | None = None, decode: dict[str, Any] | None = None) -> dict:
    endpoint = dev_endpoint()
    if prefill is not None:
        endpoint["prefill"]["autoscaling"] = prefill
    if decode is not None:
        endpoint["decode"]["autoscaling"] = decode
    return endpoint


@pytest.fixture(scope="module")
def observed():
    endpoint = scaling({"minReplicas": 1, "maxReplicas": 2}, {"minReplicas": 1, "maxReplicas": 2})
    return render(with_endpoints(endpoint, gpu_nodes=4, **OBSERVED))


def test_both_roles_query_the_stack_workspace(observed):
    workspace = one(observed, "aws:amp/workspace:Workspace")
    (config,) = endpoint_configs(observed)
    triggers = [
        role["prometheusTrigger"] for role in config["spec"]["pdSpec"]["autoScalingSpec"].values()
    ]
    assert [t["serverAddress"] for t in triggers] == [
        f"https://aps-workspaces.us-west-2.amazonaws.com/workspaces/{workspace.id}"
    ] * 2


def test_keda_may_query_the_stack_workspace_alone(observed):
    workspace = one(observed, "aws:amp/workspace:Workspace")
    keda = one(observed, "aws:iam/rolePolicy:RolePolicy", "inference-operator-keda")
    (queries,) = [
        s for s in json.loads(keda.inputs["policy"])["Statement"] if s["Sid"] == "PrometheusQueries"
    ]
    assert "aps:QueryMetrics" in queries["Action"]
    assert queries["Resource"] == [f"arn:aws:aps:us-west-2:123456789012:workspace/{workspace.id}"]


def test_the_observability_add_on_waits_for_the_nodes(observed):
    addon = one(observed, "aws:eks/addon:Addon", "observability")
    assert waits_for(observed, addon, one(observed, "aws-native:sagemaker:Cluster"))


def test_the_stack_exports_the_prometheus_query_endpoint(observed):
    workspace = one(observed, "aws:amp/workspace:Workspace")
    assert observed.outputs["observability"] == {
        "prometheusEndpoint": f"https://aps-workspaces.us-west-2.amazonaws.com/workspaces/{workspace.id}",
        "prometheusWorkspaceArn": f"arn:aws:aps:us-west-2:123456789012:workspace/{workspace.id}",
    }


def test_grafana_adds_its_url_and_the_dashboard_url_to_the_exports():
    config = dev_config() | {"hyperpod-dpd:observability": {"enabled": True, "grafana": {}}}
    result = render(config)
    grafana = one(result, "aws:grafana/workspace:Workspace")
    url = f"https://{grafana.id}.grafana-workspace.us-west-2.amazonaws.com"
    assert result.outputs["observability"]["grafanaUrl"] == url
    assert result.outputs["observability"]["grafanaDashboardUrl"] == (
        f"{url}/d/hyperpod-dpd/hyperpod-dpd-endpoints"
    )


def test_grafana_is_refused_where_amazon_managed_grafana_is_not_offered():
    config = dev_config() | {
        "aws:region": "eu-south-1",
        "hyperpod-dpd:observability": {"enabled": True, "grafana": {}},
    }
    found = problem_for("hyperpod-dpd:observability.grafana", problems(config))
    assert "is not offered in eu-south-1" in found


def test_grafana_13_is_refused_for_migrating_the_prometheus_data_source():
    config = dev_config() | {
        "hyperpod-dpd:observability": {"enabled": True, "grafana": {"version": "13.2"}}
    }
    found = problem_for("hyperpod-dpd:observability.grafana.version", problems(config))
    assert "13.2 is not allowed: Grafana 13 turns the stack's SigV4 prometheus data source" in found
    assert found.endswith("use 12.4 (the default) or 10.4")


@pytest.fixture(scope="module")
def unobserved():
    """The dev stack with observability off."""
    return render(dev_config() | UNOBSERVED)


def test_without_observability_metrics_get_a_warning_saying_where_they_go(unobserved):
    result = unobserved
    (warning,) = [w for w in result.warnings if ".metrics.enabled:" in w]
    assert warning.startswith(
        f"{KEY}.metrics.enabled: the operator exposes this endpoint's metrics"
    )
    assert "they stay on the pods" in warning
    assert "observability.enabled: true" in warning
    assert not result.of_type("aws:eks/addon:Addon") or all(
        r.inputs["addonName"] != "amazon-sagemaker-hyperpod-observability"
        for r in result.of_type("aws:eks/addon:Addon")
    )


def test_with_observability_the_metrics_warning_is_gone(observed):
    assert [w for w in observed.warnings if ".metrics.enabled:" in w] == []


def test_autoscaling_without_observability_or_a_server_address_is_refused():
    config = with_endpoints(scaling({"maxReplicas": 2}), gpu_nodes=3, **UNOBSERVED)
    found = problem_for(f"{KEY}.prefill.autoscaling.serverAddress", problems(config))
    assert "is required while observability is off" in found


def test_autoscaling_without_observability_may_name_its_workspace():
    address = "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-own"
    config = with_endpoints(
        scaling({"maxReplicas": 2, "serverAddress": address}), gpu_nodes=3, **UNOBSERVED
    )
    result = render(config)
    (endpoint,) = endpoint_configs(result)
    trigger = endpoint["spec"]["pdSpec"]["autoScalingSpec"]["prefillAutoScaling"][
        "prometheusTrigger"
    ]
    assert trigger["serverAddress"] == address
    keda = one(result, "aws:iam/rolePolicy:RolePolicy", "inference-operator-keda")
    statements = json.loads(keda.inputs["policy"])["Statement"]
    assert statements[1]["Resource"] == ["arn:aws:aps:us-west-2:123456789012:workspace/ws-own"]


def test_with_observability_off_and_nothing_autoscaling_keda_reads_no_workspace(unobserved):
    keda = one(unobserved, "aws:iam/rolePolicy:RolePolicy", "inference-operator-keda")
    statements = json.loads(keda.inputs["policy"])["Statement"]
    assert [s["Sid"] for s in statements] == ["CloudWatchMetrics"]


def test_min_above_max_is_refused_with_the_key_named():
    config = with_endpoints(scaling(decode={"minReplicas": 3, "maxReplicas": 2}), **OBSERVED)
    assert problem_for(f"{KEY}.decode.autoscaling.minReplicas", problems(config)) == (
        f"{KEY}.decode.autoscaling.minReplicas: 3 is above maxReplicas 2; minReplicas must be "
        "at most maxReplicas"
    )


GROUP_COUNT = "hyperpod-dpd:cluster.instanceGroups[0].instanceCount"


def test_a_maximum_the_gpu_nodes_of_one_az_can_never_hold_is_refused():
    # 4 prefill x 8 + 2 decode x 8 = 48 GPUs, 6 nodes; the AZ has 2.
    endpoint = scaling({"maxReplicas": 4}, {"maxReplicas": 2})
    assert problem_for(GROUP_COUNT, problems(with_endpoints(endpoint, **OBSERVED))) == (
        f"{GROUP_COUNT}: endpoints[0] (dpd-test) needs 6 ml.p5.48xlarge nodes in one AZ for its "
        "autoscaling maxima, 4 prefill x 8 GPUs and 2 decode x 8 GPUs (or lower maxReplicas) "
        "(prefill and decode share an AZ); usw2-az2 has 2, the most "
        "(cluster.instanceGroups[0]); raise its instanceCount by 4"
    )


def test_the_maxima_count_the_nodes_of_one_az_not_of_all():
    # 2 prefill + 1 decode at most: 3 nodes in one AZ. Two AZs of 2 hold 4 together, which
    # the pods can't use: prefill and decode share an AZ.
    config = with_endpoints(scaling({"maxReplicas": 2}), **OBSERVED)
    groups = config["hyperpod-dpd:cluster"]["instanceGroups"]
    groups.insert(1, {**groups[0], "name": "p5-az3", "availabilityZoneId": "usw2-az3"})
    assert "usw2-az2 has 2, the most (cluster" in problem_for(GROUP_COUNT, problems(config))
    groups[0]["instanceCount"] = 3
    assert settings_of(config).stack.endpoints


def test_the_maximum_is_summed_over_the_endpoints_of_a_type():
    first = scaling({"maxReplicas": 2})
    second = {**first, "name": "second", "endpointName": "second"}
    second["prefill"] = {"replicas": 1, "gpus": 8}
    # 3 + 2 = 5 nodes' worth at most, the groups have 4.
    config = with_endpoints(first, second, gpu_nodes=4, **OBSERVED)
    found = problem_for(GROUP_COUNT, problems(config))
    assert "claim up to 40 GPUs" in found
    assert "raise an instanceCount of a group of that type" in found


def test_a_maximum_beyond_the_node_autoscaling_maximum_is_refused():
    config = with_endpoints(scaling({"maxReplicas": 2}), scaling_second(), gpu_nodes=4, **OBSERVED)
    config["hyperpod-dpd:cluster"]["autoscaling"] = {"enabled": True}
    found = problem_for(GROUP_COUNT, problems(config))
    assert "but its groups hold 4 nodes, their node-autoscaling maximum, so" in found


def scaling_second() -> dict:
    second = {**scaling({"maxReplicas": 2}), "name": "second", "endpointName": "second"}
    second["prefill"] = {"replicas": 1, "gpus": 8}
    return second


def test_the_render_and_size_show_each_role_range(tmp_path, capsys):
    config = with_endpoints(scaling({"maxReplicas": 2}), gpu_nodes=3, **OBSERVED)
    path = config_file(tmp_path, config)
    assert main(["size", "--config-file", path]) == 0
    printed = capsys.readouterr().out
    assert "  prefill replicas        1-2 x 8 GPUs, scaling on waiting\n" in printed
    assert "  GPUs at most            24\n" in printed
    assert main(["render", "--config-file", path, "--out", str(tmp_path / "out")]) == 0
    summary = plan_in_full(tmp_path / "out")
    assert "    prefill 1-2x8 GPU (starts at 1), decode 1x8 GPU, at most 24 GPUs, TP 8" in summary
    assert (
        "  Prometheus query endpoint https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-"
        in summary
    )


def test_the_graph_shows_the_observability_component(tmp_path):
    config = with_endpoints(dev_endpoint(), **OBSERVED)
    assert (
        main(
            ["render", "--config-file", config_file(tmp_path, config), "--out", str(tmp_path / "o")]
        )
        == 0
    )
    graph = (tmp_path / "o" / "graph.mmd").read_text()
    assert 'n_observability["observability<br/>Observability · 4 resources"]' in graph
    assert "n_observability --> n_inference_operator" in graph


def test_the_prod_example_observes_and_scales_prefill_on_its_queue(prod_render):
    (config,) = endpoint_configs(prod_render)
    prefill = config["spec"]["pdSpec"]["autoScalingSpec"]["prefillAutoScaling"]
    assert (prefill["minReplicaCount"], prefill["maxReplicaCount"]) == (1, 2)
    assert prefill["prometheusTrigger"]["name"] == "prefill-waiting"
    assert "observability" in prod_render.outputs


def test_an_observability_add_on_below_the_floor_is_refused():
    config = dev_config() | {
        "hyperpod-dpd:observability": {"enabled": True, "addonVersion": "v1.0.4-eksbuild.1"}
    }
    assert problem_for("hyperpod-dpd:observability.addonVersion", problems(config)) == (
        "hyperpod-dpd:observability.addonVersion: v1.0.4-eksbuild.1 is older than "
        "v1.0.5-eksbuild.1, the oldest release AWS documents and asks users to run"
    )


def test_advanced_inference_metrics_are_refused_as_collecting_nothing_more():
    config = dev_config() | {
        "hyperpod-dpd:observability": {"enabled": True, "inferenceMetrics": {"level": "ADVANCED"}}
    }
    key = "hyperpod-dpd:observability.inferenceMetrics.level"
    assert problem_for(key, problems(config)).startswith(
        f"{key}: ADVANCED is not allowed: AWS's HyperPod cluster-metrics table lists no advanced "
        "inference metrics"
    )


def test_autoscaling_an_endpoint_whose_metrics_are_off_is_warned_about():
    endpoint = scaling({"maxReplicas": 2})
    endpoint["metrics"] = {"enabled": False}
    settings = settings_of(with_endpoints(endpoint, gpu_nodes=3, **OBSERVED))
    (warning,) = [w for w in settings.warnings if w.startswith(f"{KEY}.prefill.autoscaling:")]
    assert "metrics.enabled is false" in warning
