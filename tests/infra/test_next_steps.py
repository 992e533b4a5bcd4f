"""The commands a user runs after `pulumi up`: real names, in a form the shell takes."""

import json
import shlex

import pytest

from components.endpoint.kind import READY_MESSAGE
from infra.next_steps import (
    EndpointTarget,
    hugging_face_repository,
    next_steps,
    next_steps_script,
    upload_weights,
)
from tests.pasted import HOSTILE, expected_calls, paste
from tests.support import dev_config, render, shellcheck_findings

ROUTER = "http://dpd-test-default-routing-service.hyperpod-inference-system.svc.cluster.local:443"
DEV = EndpointTarget(
    name="dpd-test",
    namespace="default",
    object_name="dpd-test",
    model_name="Llama-3.3-70B-Instruct",
    sagemaker_endpoint="dpd-test",
    invocation_path="v1/chat/completions",
    weights_uri="s3://models-bucket/Llama-3.3-70B-Instruct/",
    router_url=ROUTER,
    drain_seconds=58,
)


def steps(target: EndpointTarget = DEV, **metrics) -> dict:
    return next_steps(cluster="hyperpod-dpd-dev", region="us-west-2", endpoints=[target], **metrics)


def endpoint(target: EndpointTarget = DEV) -> dict:
    return steps(target)["endpoints"][f"{target.namespace}/{target.name}"]


def test_the_kubeconfig_names_the_cluster_and_region():
    assert steps()["kubeconfig"] == (
        "aws eks update-kubeconfig --name hyperpod-dpd-dev --region us-west-2"
    )


def test_gated_llama_weights_go_from_hugging_face_to_the_model_prefix():
    gated, login, download, sync = endpoint()["uploadWeights"]
    assert gated.startswith("# meta-llama/Llama-3.3-70B-Instruct is gated")
    assert login == "hf auth login"
    assert shlex.split(download)[:5] == [
        "hf", "download", "meta-llama/Llama-3.3-70B-Instruct", "--local-dir",
        "Llama-3.3-70B-Instruct",
    ]  # fmt: skip
    assert shlex.split(sync)[:4] == [
        "aws", "s3", "sync", "Llama-3.3-70B-Instruct",
    ]  # fmt: skip
    assert shlex.split(sync)[4] == "s3://models-bucket/Llama-3.3-70B-Instruct/"


def test_an_unknown_model_family_is_copied_from_a_local_directory():
    target = EndpointTarget(**{**vars(DEV), "model_name": "my-model"})
    note, sync = endpoint(target)["uploadWeights"]
    assert note == "# put the model's files (config.json, *.safetensors, ...) in my-model/"
    assert sync.startswith("aws s3 sync my-model s3://models-bucket/")


def test_weights_not_in_s3_need_no_upload():
    assert "uploadWeights" not in endpoint(EndpointTarget(**{**vars(DEV), "weights_uri": None}))


@pytest.mark.parametrize(
    "model, repository",
    [
        ("Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-8B-Instruct"),
        ("Qwen2.5-72B-Instruct", "Qwen/Qwen2.5-72B-Instruct"),
        ("DeepSeek-V3", "deepseek-ai/DeepSeek-V3"),
        ("gpt-oss-120b", "openai/gpt-oss-120b"),
        ("my-model", None),
    ],
)
def test_hugging_face_repositories_by_family(model, repository):
    assert hugging_face_repository(model) == repository


def test_waiting_polls_every_generation_until_the_operator_reports_both_roles_ready():
    pods, wait = endpoint()["waitUntilReady"]
    assert shlex.split(pods) == [
        "kubectl", "get", "pods", "-n", "default",
        "-l", "inference.sagemaker.aws.amazon.com/dpd-role",
    ]  # fmt: skip
    # By the label every generation carries, so the command outlives a new generation.
    assert wait.startswith(
        "tries=60; until kubectl get inferenceendpointconfig -n default "
        "-l hyperpod-dpd/endpoint=dpd-test "
    )
    assert "-o jsonpath='{.items[*].status.conditions[*].message}' " in wait
    assert f"| grep -q '{READY_MESSAGE}'; do tries=$((tries - 1)); " in wait
    assert endpoint()["readyMessage"] == READY_MESSAGE


def test_the_wait_gives_up_after_half_an_hour_naming_the_diagnostics():
    _, wait = endpoint()["waitUntilReady"]
    assert (
        'if [ "$tries" -eq 0 ]; then echo \'not ready after 30 minutes: run .venv/bin/hyperpod-dpd '
        'diagnose --stack dev --endpoint dpd-test, and see docs/operations.md, "When it '
        "does not become ready\"' >&2; break; fi; sleep 30; done"
    ) in wait


def _commands(found: dict) -> list[str]:
    commands = [found["kubeconfig"]]
    for steps_of_one in found["endpoints"].values():
        for key, value in steps_of_one.items():
            if key != "readyMessage":
                commands += [value] if isinstance(value, str) else value
    return commands


@pytest.mark.parametrize(
    "target",
    [
        DEV,
        EndpointTarget(**{**vars(DEV), "model_name": "my model's weights"}),
        EndpointTarget(**{**vars(DEV), "invocation_path": "v1/completions"}),
        EndpointTarget(**{**vars(DEV), "router_url": None, "sagemaker_endpoint": None}),
    ],
    ids=["dev", "a-name-the-shell-must-quote", "completions", "pods"],
)
def test_every_command_is_one_the_shell_takes(target):
    assert shellcheck_findings(_commands(steps(target))) == ""


def test_the_sagemaker_request_is_json_the_cli_sends_raw():
    words = shlex.split(endpoint()["invokeSageMaker"].removesuffix(" && cat answer.json"))
    assert words[:3] == ["aws", "sagemaker-runtime", "invoke-endpoint"]
    assert words[words.index("--endpoint-name") + 1] == "dpd-test"
    assert words[words.index("--cli-binary-format") + 1] == "raw-in-base64-out"
    body = json.loads(words[words.index("--body") + 1])
    assert body["model"] == "/opt/ml/model" and body["messages"][0]["role"] == "user"
    assert words[-1] == "answer.json"


def test_a_completions_path_gets_a_prompt_not_messages():
    target = EndpointTarget(**{**vars(DEV), "invocation_path": "v1/completions"})
    words = shlex.split(endpoint(target)["invokeSageMaker"])
    assert "prompt" in json.loads(words[words.index("--body") + 1])


def test_no_sagemaker_endpoint_no_sagemaker_request():
    assert "invokeSageMaker" not in endpoint(
        EndpointTarget(**{**vars(DEV), "sagemaker_endpoint": None})
    )


def test_the_router_is_reached_at_its_address_over_plain_http_on_443_from_a_pod():
    words = shlex.split(endpoint()["invokeRouter"])
    assert words[:3] == ["kubectl", "run", "curl-dpd-test"]
    url = words[words.index("curl") + 2]
    assert url == f"{ROUTER}/v1/chat/completions"


def test_each_kind_of_caller_is_told_what_a_change_does_to_it():
    kept = " ".join(line.removeprefix("# ") for line in endpoint()["callers"])
    assert kept.startswith("rollout keepName: the names above stay.")
    assert "its load balancer comes back under a new hostname" in kept
    swapped = EndpointTarget(
        **{**vars(DEV), "renames": True, "router_url": "http://dpd-test.default.svc:443"}
    )
    renamed = " ".join(line.removeprefix("# ") for line in endpoint(swapped)["callers"])
    assert "with its own load balancer and SageMaker endpoint name" in renamed
    assert "http://dpd-test.default.svc:443 move to it once it serves" in renamed
    assert "this one answers 58 s more (drainSeconds)" in renamed


def test_metrics_name_the_workspace_and_grafana_when_there_is_one():
    assert steps()["metrics"] == {}
    found = steps(prometheus_endpoint="https://aps/ws-1/", grafana_url="https://g-1.grafana")
    assert found["metrics"] == {
        "prometheusEndpoint": "https://aps/ws-1/",
        "grafana": "https://g-1.grafana",
    }


def test_the_export_is_one_script_that_pastes_into_the_shell():
    script = next_steps_script(
        steps(prometheus_endpoint="https://aps/ws-1", grafana_url="https://g")
    )
    lines = script.splitlines()
    assert lines[:2] == [
        "# Reach the cluster:",
        "aws eks update-kubeconfig --name hyperpod-dpd-dev --region us-west-2",
    ]
    assert "# default/dpd-test: wait until it serves (pulumi up has waited for it already)" in lines
    assert lines[-2:] == [
        "#   Grafana https://g",
        "#   Amazon Managed Prometheus https://aps/ws-1 (SigV4 queries)",
    ]
    # Plain text: shellcheck reads it as the shell would, no JSON escapes in it.
    assert shellcheck_findings(lines) == ""
    assert '\\"' not in script


def _hostile_target(value: str) -> EndpointTarget:
    return EndpointTarget(
        name=f"dpd{value}",
        namespace=f"ns{value}",
        object_name=f"dpd{value}",
        model_name=f"Llama-3.3-70B{value}",
        sagemaker_endpoint=f"ep{value}",
        invocation_path=f"v1/completions{value}",
        weights_uri=f"s3://models-bucket/{value}/",
        router_url=f"http://dpd{value}.svc:443",
    )


@pytest.mark.parametrize("value", HOSTILE)
def test_pasted_commands_run_only_their_tools_whatever_the_values_hold(tmp_path, value):
    found = next_steps(
        cluster=f"c{value}", region=f"r{value}", endpoints=[_hostile_target(value)], stack="dev"
    )
    commands = _commands(found)
    pasted = paste(commands, tmp_path)
    assert pasted.created == []
    assert pasted.calls == expected_calls(commands)
    # Each value reached its tool as one argument.
    kubeconfig, _, download, sync, _, wait, invoke, _ = pasted.calls
    assert kubeconfig[4:7] == [f"c{value}", "--region", f"r{value}"]
    assert download[2] == f"meta-llama/Llama-3.3-70B{value}"
    assert sync[3:5] == [f"Llama-3.3-70B{value}", f"s3://models-bucket/{value}/"]
    assert wait[3:7] == ["-n", f"ns{value}", "-l", f"hyperpod-dpd/endpoint=dpd{value}"]
    assert invoke[invoke.index("--endpoint-name") + 1] == f"ep{value}"


def test_a_newline_in_a_name_stays_inside_its_comment():
    (apart, gated, *_) = upload_weights("Llama-3.3-70B\ntouch PWNED", "s3://b/p/")
    assert gated.startswith("# meta-llama/Llama-3.3-70B\\ntouch PWNED is gated")
    assert "\n" not in gated and "\n" not in apart


# What an S3 prefix may hold: AWS's characters that "might need special handling" are valid
# keys, and together they make a command line of their own when pasted unquoted.
SHELL_PREFIX = "weights/$(touch PWNED-1); touch PWNED-2 & echo 'x'!=@:+,?"


def test_the_stack_exports_a_script_that_pastes_safely_whatever_the_prefix(tmp_path):
    config = dev_config()
    config["hyperpod-dpd:endpoints"][0]["modelSource"]["s3"]["prefix"] = SHELL_PREFIX
    script = render(config).outputs["nextSteps"]
    # Pasted whole, as `pulumi stack output nextSteps` prints it.
    pasted = paste([script], tmp_path)
    commands = script.splitlines()
    assert pasted.created == []
    assert pasted.calls == expected_calls(commands)
    (sync,) = [call for call in pasted.calls if call[:3] == ["aws", "s3", "sync"]]
    assert sync[4] == f"s3://hyperpod-dpd-test-models-123456789012/{SHELL_PREFIX}/"


AGGREGATED = EndpointTarget(**{**vars(DEV), "aggregated": True, "router_url": None})


def test_an_aggregated_endpoint_waits_for_its_state_and_has_no_router_to_call():
    found = endpoint(AGGREGATED)
    (wait,) = found["waitUntilReady"]
    assert "-o jsonpath='{.items[*].status.state}' | grep -q DeploymentComplete;" in wait
    assert found["readyMessage"] == "DeploymentComplete"
    assert "invokeRouter" not in found
    assert "invokeSageMaker" in found


def test_an_aggregated_endpoint_with_routing_is_called_through_its_router():
    routed = EndpointTarget(**{**vars(AGGREGATED), "router_url": ROUTER})
    assert f"{ROUTER}/" in endpoint(routed)["invokeRouter"]


def test_a_colocated_endpoint_without_router_or_sagemaker_is_asked_through_one_of_its_pods():
    pods = EndpointTarget(
        **{**vars(AGGREGATED), "sagemaker_endpoint": None, "served_model": "qwen", "port": 8080}
    )
    found = endpoint(pods)
    assert "invokeSageMaker" not in found
    command = found["invokePods"]
    assert command.startswith(
        'kubectl port-forward -n default "$(kubectl get pods -n default -l app=dpd-test'
    )
    assert "curl -s http://localhost:8080/v1/chat/completions" in command
    assert '"model": "qwen"' in command


def test_two_endpoints_on_one_prefix_download_it_once():
    other = EndpointTarget(**{**vars(DEV), "name": "dpd-two", "object_name": "dpd-two"})
    found = next_steps(cluster="c", region="us-west-2", endpoints=[DEV, other])["endpoints"]
    assert any(
        line.startswith("hf download") for line in found["default/dpd-test"]["uploadWeights"]
    )
    assert found["default/dpd-two"]["uploadWeights"] == [
        "# the same weights as default/dpd-test, above"
    ]


def test_a_model_name_that_disagrees_with_its_prefix_is_flagged():
    apart = EndpointTarget(**{**vars(DEV), "weights_uri": "s3://models-bucket/llama70b/"})
    (flag, *_) = endpoint(apart)["uploadWeights"]
    assert flag.startswith("# modelName Llama-3.3-70B-Instruct and the weights' prefix llama70b")
    assert not endpoint()["uploadWeights"][0].startswith("# modelName")
