"""`hyperpod-dpd import-endpoint`, end to end: what a user pastes in, what comes out."""

import contextlib
import io
import json
import shlex
from pathlib import Path

import pytest
import yaml

from tests.support import FIXTURES, shellcheck_findings
from tests.tools.import_endpoint.test_corpus import EXAMPLE_ACCOUNT, imported, lost_or_changed
from tools.cli import main
from tools.import_endpoint.import_command import EXAMPLE_FILE
from tools.render.stack_config import read_stack_config

# AWS's complete DPD example with a bucket and region in place of its placeholders.
DPD = (
    (FIXTURES / "iec_corpus" / "aws-docs-dpd-llama33-70b.yaml")
    .read_text()
    .replace("<YOUR_BUCKET>", "team-weights")
    .replace("<YOUR_REGION>", "us-west-2")
)


def run(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["import-endpoint", *args])
    return code, out.getvalue(), err.getvalue()


def manifest_file(tmp_path: Path, text: str, name: str = "live.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_the_dpd_example_comes_back_as_an_adopted_item_that_writes_it_back(tmp_path):
    path = manifest_file(tmp_path, DPD)
    code, out, err, renders = imported(path)
    assert code == 0, err
    (item,) = yaml.safe_load(out)
    assert (item["name"], item["adopted"], item["endpointName"]) == ("dpd-test", True, "dpd-test")
    # The command line as it runs, which the settings are read from.
    assert item["workerArgs"][-2:] == ["--gpu-memory-utilization", "0.75"]
    assert item["modelSource"] == {
        "s3": {"prefix": "Llama-3.3-70B-Instruct", "bucket": "team-weights", "region": "us-west-2"}
    }
    assert lost_or_changed(path, out, renders) == []
    # What the stack adds is said, with why: only to the object's metadata.
    assert "#   metadata.labels.hyperpod-dpd/endpoint: the label that finds the endpoint's" in out
    assert "#   spec." not in out and "rolls the pods" not in err


def test_a_field_the_crd_does_not_have_exits_2_naming_it(tmp_path):
    path = manifest_file(
        tmp_path, DPD.replace("    s3Storage:\n", "    s3Storage:\n      prefix: x\n")
    )
    code, out, err = run(str(path))
    assert (code, out) == (2, "")
    assert err.startswith(f"{path}: spec.modelSourceConfig.s3Storage: the operator's CRD")
    assert "not in the operator's schema" in err


def test_a_value_the_stack_refuses_names_the_manifests_field(tmp_path):
    path = manifest_file(tmp_path, DPD.replace("team-weights", "Team_Weights"))
    code, _, err = run(str(path))
    assert code == 2
    assert err.startswith(f"{path}: spec.modelSourceConfig.s3Storage.bucketName: the stack refuses")


def test_an_unowned_field_rides_in_spec_overrides_and_comes_back(tmp_path):
    path = manifest_file(
        tmp_path,
        DPD.replace("  loadBalancer:\n", "  maxDeployTimeInSeconds: 3600\n  loadBalancer:\n"),
    )
    code, out, err, renders = imported(path)
    assert code == 0, err
    (item,) = yaml.safe_load(out)
    assert item["specOverrides"] == {"maxDeployTimeInSeconds": 3600}
    assert lost_or_changed(path, out, renders) == []


def test_a_live_object_from_kubectl_loses_only_what_the_api_server_wrote(tmp_path):
    live = yaml.safe_load(DPD)
    live["metadata"] |= {"uid": "0f0e", "resourceVersion": "42", "generation": 3}
    live["metadata"]["annotations"] = {"kubectl.kubernetes.io/last-applied-configuration": "{}"}
    live["status"] = {"conditions": [{"type": "Ready", "status": "True"}]}
    listed = {"apiVersion": "v1", "kind": "List", "items": [live]}
    code, out, err = run(str(manifest_file(tmp_path, yaml.safe_dump(listed))))
    assert code == 0, err
    assert [i["name"] for i in yaml.safe_load(out)] == ["dpd-test"]


def test_several_documents_give_several_items(tmp_path):
    other = DPD.replace("name: dpd-test", "name: dpd-two").replace(
        "endpointName: dpd-test", "endpointName: dpd-two"
    )
    code, out, err = run(str(manifest_file(tmp_path, f"{DPD}---\n{other}")))
    assert code == 0, err
    assert [i["name"] for i in yaml.safe_load(out)] == ["dpd-test", "dpd-two"]


def test_what_no_manifest_is_exits_2_without_a_traceback(tmp_path):
    cases = {
        "empty.yaml": ("", "(file): holds no InferenceEndpointConfig"),
        "broken.yaml": ("spec: [", "is not valid YAML"),
        "list.yaml": ("- 1\n- 2\n", "(document): is a list, not a Kubernetes object"),
        "service.yaml": ("apiVersion: v1\nkind: Service\n", "kind: 'Service' is not an"),
        "old.yaml": (DPD.replace("/v1\n", "/v1alpha1\n", 1), "apiVersion: 'inference"),
        "tagged.yaml": ("kind: !!binary aGk=\n", "kind: !!binary values are not supported"),
        "deep.yaml": ("a: " + "[" * 200 + "]" * 200, "nests deeper than"),
        "huge.yaml": ("#" * (2**20 + 1), "is larger than 1 MiB"),
        "binary.yaml": ("\0", "is a binary file"),
    }
    for name, (text, said) in cases.items():
        code, out, err = run(str(manifest_file(tmp_path, text, name)))
        assert (code, out) == (2, ""), name
        assert said in err, (name, err)


def test_a_hostile_name_is_refused_and_printed_harmless(tmp_path):
    hostile = DPD.replace("name: dpd-test", 'name: "dpd\\x1b[2Ktest\\u202e"', 1)
    code, _, err = run(str(manifest_file(tmp_path, hostile)))
    assert code == 2
    assert "\x1b" not in err and "\u202e" not in err
    assert f"{tmp_path}/live.yaml: metadata.name: the stack refuses its name: " in err


def test_with_a_stack_the_items_are_appended_keeping_comments_and_the_import_is_printed(tmp_path):
    stack = tmp_path / "Pulumi.team.yaml"
    stack.write_text(EXAMPLE_FILE.read_text())
    before = read_stack_config(stack)
    path = manifest_file(tmp_path, DPD)
    code, out, err = run(
        str(path), "--stack", "team", "--config-file", str(stack), "--account", EXAMPLE_ACCOUNT
    )
    assert code == 0, err
    text = stack.read_text()
    assert text.startswith(EXAMPLE_FILE.read_text().rstrip("\n"))
    assert "# An example stack on a HyperPod cluster this stack does not build" in text
    endpoints = json.loads(read_stack_config(stack).values["hyperpod-dpd:endpoints"])
    assert endpoints == [*json.loads(before.values["hyperpod-dpd:endpoints"]), *yaml.safe_load(out)]
    (command,) = err.splitlines()[1:]
    assert shellcheck_findings([command]) == ""
    assert shlex.split(command) == [
        *("pulumi", "import", "--stack", "team"),
        *("--file", str(tmp_path / "import-team-dpd-test.json"), "--generate-code=false"),
    ]
    document = json.loads((tmp_path / "import-team-dpd-test.json").read_text())
    (config,) = [r for r in document["resources"] if "id" in r]
    assert config["id"] == "default/dpd-test"
    assert config["logicalName"] == "default/dpd-test"


def test_a_setting_the_manifest_cannot_give_names_where_it_would_come_from(tmp_path):
    off = DPD.replace(
        "intelligentRoutingSpec:\n    enabled: true", "intelligentRoutingSpec:\n    enabled: false"
    )
    path = manifest_file(tmp_path, off)
    code, _, err = run(str(path))
    assert code == 2
    assert err.startswith(
        f"{path}: spec.intelligentRoutingSpec.enabled: the stack refuses its routingEnabled: "
    )


# The HyperPod CLI's colocated vLLM sample, with a context length and a model the catalog sizes.
COLOCATED = (
    (FIXTURES / "iec_corpus" / "cli-v1-huggingface-mistral7b-vllm.yaml")
    .read_text()
    .replace("modelName: mistral-7b", "modelName: Llama-3.1-8B-Instruct")
    .replace(
        '      - "--download-dir"',
        '      - "--max-model-len"\n      - "32768"\n      - "--download-dir"',
    )
)


def test_a_colocated_endpoint_comes_back_as_a_serving_item_that_writes_it_back(tmp_path):
    path = manifest_file(tmp_path, COLOCATED)
    code, out, err, renders = imported(path)
    assert code == 0, err
    (item,) = yaml.safe_load(out)
    assert item["serving"] == {"gpus": 4}
    assert "prefill" not in item and "decode" not in item
    assert item["workerArgs"] == yaml.safe_load(COLOCATED)["spec"]["worker"]["args"]
    assert "gpuMemoryUtilization" not in item
    assert lost_or_changed(path, out, renders) == []


COLOCATED_RESOURCES = """    resources:
      requests:
        nvidia.com/gpu: "4"
        memory: "96Gi"
        cpu: "16"
      limits:
        nvidia.com/gpu: "4"
        memory: "96Gi"
        cpu: "16"
"""


@pytest.mark.parametrize(
    "resources",
    [
        # A MIG slice, as AWS's GPU partitioning guide requests one.
        {
            "requests": {"nvidia.com/mig-3g.20gb": 1, "cpu": "5600m"},
            "limits": {"nvidia.com/mig-3g.20gb": 1},
        },
        # GPUs in limits alone, which Kubernetes takes as the request.
        {"limits": {"nvidia.com/gpu": "4", "memory": "96Gi"}},
        # No GPU at all, as `hyp create` writes an endpoint given none.
        {},
    ],
    ids=["mig", "gpus-in-limits", "none"],
)
def test_worker_resources_the_roles_gpus_cannot_write_come_back_as_they_are(tmp_path, resources):
    shown = yaml.safe_dump({"resources": resources}, default_flow_style=False)
    # One GPU's pods at most: those of a MIG slice, or none, run no tensor parallelism.
    text = COLOCATED.replace('      - "--tensor-parallel-size"\n      - "4"\n', "")
    text = text.replace(
        COLOCATED_RESOURCES, "".join(f"    {line}\n" for line in shown.splitlines())
    )
    path = manifest_file(tmp_path, text.replace("spec:\n", "spec:\n  tlsConfig: {}\n", 1))
    code, out, err, renders = imported(path)
    assert code == 0, err
    (item,) = yaml.safe_load(out)
    assert item["workerResources"] == {**resources, "asWritten": True}
    assert lost_or_changed(path, out, renders) == []


def test_a_dpd_worker_without_gpus_comes_back_as_it_is(tmp_path):
    text = DPD.replace(
        '        memory: 1024Gi\n        nvidia.com/gpu: "8"\n', "        memory: 1024Gi\n"
    )
    assert text.count("nvidia.com/gpu") == DPD.count("nvidia.com/gpu") - 2
    path = manifest_file(tmp_path, text)
    code, out, err, renders = imported(path)
    assert code == 0, err
    assert lost_or_changed(path, out, renders) == []


AUTOSCALED = COLOCATED.replace(
    "spec:\n",
    """spec:
  replicas: 1
  autoScalingSpec:
    minReplicaCount: 1
    maxReplicaCount: 4
    pollingInterval: 15
    prometheusTrigger:
      name: vllm-waiting
      serverAddress: https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-12345678-1234-1234-1234-123456789012
      query: sum(vllm:num_requests_waiting)
      targetValue: 4
      metricType: Value
""",
)


def test_a_prometheus_trigger_is_read_into_the_serving_roles_autoscaling(tmp_path):
    assert AUTOSCALED != COLOCATED
    path = manifest_file(tmp_path, AUTOSCALED)
    code, out, err, renders = imported(path)
    assert code == 0, err
    (item,) = yaml.safe_load(out)
    assert item["serving"]["autoscaling"] == {
        "minReplicas": 1,
        "maxReplicas": 4,
        "pollingInterval": 15,
        "metric": "query",
        "triggerName": "vllm-waiting",
        "query": "sum(vllm:num_requests_waiting)",
        "target": 4,
        "metricType": "Value",
        "serverAddress": (
            "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/"
            "ws-12345678-1234-1234-1234-123456789012"
        ),
    }
    assert lost_or_changed(path, out, renders) == []


def test_a_cloudwatch_trigger_alone_comes_back_in_the_crds_shape(tmp_path):
    start = AUTOSCALED.index("    prometheusTrigger:")
    end = AUTOSCALED.index("      metricType: Value\n", start) + len("      metricType: Value\n")
    # On the endpoint's own SageMaker endpoint, as AWS's autoscaling walkthrough scales.
    cloudwatch = (
        AUTOSCALED[:start].replace("spec:\n", "spec:\n  endpointName: mistral-7b-vllm\n", 1)
        + "    cloudWatchTrigger:\n      name: invocations\n      namespace: AWS/SageMaker\n"
        "      metricName: Invocations\n      metricStat: Sum\n      targetValue: 10\n"
        "      dimensions:\n        - name: EndpointName\n          value: mistral-7b-vllm\n"
        "        - name: VariantName\n          value: AllTraffic\n" + AUTOSCALED[end:]
    )
    path = manifest_file(tmp_path, cloudwatch)
    code, out, err, renders = imported(path)
    assert code == 0, err
    (item,) = yaml.safe_load(out)
    scaling = item["serving"]["autoscaling"]
    assert scaling["cloudWatch"]["metricName"] == "Invocations"
    assert "metric" not in scaling and "query" not in scaling
    assert lost_or_changed(path, out, renders) == []


def test_what_the_stack_would_add_to_the_spec_is_said_with_the_pods_it_may_roll(tmp_path):
    # The port's name, the CRD's default left out: the stack writes it.
    path = manifest_file(tmp_path, DPD.replace("      name: http\n", ""))
    code, out, err = run(str(path))
    assert code == 0, err
    assert "#   spec.worker.modelInvocationPort.name: the setting modelInvocationPort" in out
    assert err.startswith(f"{path}: the first `pulumi up` adds to its spec what the live object")
    assert "rolls the pods if what they run changes" in err


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda path: path.mkdir(), "is a directory, not a file"),
        (lambda path: path.write_text('{"notes": 1}\n'), "exists and is no `pulumi import` file"),
    ],
    ids=["a directory", "the user's own JSON"],
)
def test_an_import_file_that_is_not_one_is_refused_and_nothing_is_written(tmp_path, make, said):
    stack = tmp_path / "Pulumi.team.yaml"
    stack.write_text(EXAMPLE_FILE.read_text())
    import_file = tmp_path / "import-team-dpd-test.json"
    make(import_file)
    code, _, err = run(
        str(manifest_file(tmp_path, DPD)), "--stack", "team", "--config-file", str(stack),
        "--account", EXAMPLE_ACCOUNT,
    )  # fmt: skip
    assert (code, err) == (2, f"{import_file}: {said}" + err.split(said, 1)[1])
    assert stack.read_text() == EXAMPLE_FILE.read_text()
