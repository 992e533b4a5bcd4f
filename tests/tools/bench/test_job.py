"""The bench Job: valid Kubernetes in the worker's image, sending the workload's traffic to the
router (checkov scans it with the renders, tests/infra/test_checkov.py)."""

import shlex
from dataclasses import replace

import kubernetes_validate
import pytest
import yaml

from components.endpoint.image import DLC_IMAGE
from components.performance.measured import Load
from tests.components.performance.test_measured import PREDICTED
from tests.support import (
    aggregated_endpoint,
    dev_config,
    dev_endpoint,
    shellcheck_findings,
    with_endpoints,
)
from tools.bench.vllm_bench import BEGIN_MARKER, END_MARKER, BenchRun, prompt_count
from tools.cli import main

KUBERNETES_VERSION = "1.34"


def bench(tmp_path, capsys, config=None, *flags):
    path = tmp_path / "Pulumi.test.yaml"
    path.write_text(yaml.safe_dump({"config": config or dev_config()}))
    status = main(["bench", "--stack", "dev", "--config-file", str(path), *flags])
    out, err = capsys.readouterr()
    return status, out, err


def objects(out: str) -> list[dict]:
    return [d for d in yaml.safe_load_all(out) if d]


@pytest.fixture
def dev_job(tmp_path, capsys):
    status, out, err = bench(
        tmp_path, capsys, None, "--endpoint", "dpd-test", "--account-id", "111122223333"
    )
    assert status == 0, err
    return out


def job_of(documents: list[dict]) -> dict:
    (job,) = [d for d in documents if d["kind"] == "Job"]
    return job


def command(job: dict) -> list[str]:
    """The first `vllm bench serve` line of the container's script."""
    script = job["spec"]["template"]["spec"]["containers"][0]["command"][2]
    line = next(line for line in script.splitlines() if line.startswith("vllm bench serve"))
    return shlex.split(line)


def flag(args: list[str], name: str) -> str:
    return args[args.index(name) + 1]


def test_every_object_is_valid_kubernetes(dev_job):
    documents = objects(dev_job)
    assert [d["kind"] for d in documents] == [
        "PersistentVolume",
        "PersistentVolumeClaim",
        "NetworkPolicy",
        "Job",
    ]
    for document in documents:
        kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)


def test_the_job_runs_vllm_bench_serve_in_the_workers_image_at_the_dev_workload(dev_job):
    job = job_of(objects(dev_job))
    container = job["spec"]["template"]["spec"]["containers"][0]
    # The dev endpoint keeps the default worker image.
    assert container["image"] == DLC_IMAGE
    args = command(job)
    # The stable address, whatever generation serves.
    assert flag(args, "--base-url") == "http://dpd-test.default.svc.cluster.local:443"
    assert flag(args, "--backend") == "openai-chat"
    assert flag(args, "--endpoint") == "/v1/chat/completions"
    assert flag(args, "--model") == "/opt/ml/model"
    assert flag(args, "--dataset-name") == "random"
    assert flag(args, "--random-input-len") == "5000"
    assert flag(args, "--random-output-len") == "512"
    assert flag(args, "--request-rate") == "3"
    assert flag(args, "--metric-percentiles") == "50,90,95,99"
    assert "--ignore-eos" in args and "--save-result" in args
    # Five minutes at 3 requests/s: the steady state, well past the requests in flight.
    assert int(flag(args, "--num-prompts")) == 900


def test_the_tokenizer_is_read_from_the_model_prefix_read_only(dev_job):
    volume, claim, _, job = objects(dev_job)
    assert volume["spec"]["csi"]["volumeAttributes"] == {
        "bucketName": "hyperpod-dpd-dev-models-111122223333"
    }
    assert "prefix Llama-3.3-70B-Instruct/" in volume["spec"]["mountOptions"]
    assert volume["spec"]["accessModes"] == ["ReadOnlyMany"]
    pod = job["spec"]["template"]["spec"]
    (mount,) = [m for m in pod["containers"][0]["volumeMounts"] if m["name"] == "weights"]
    assert mount["readOnly"] and flag(command(job), "--tokenizer") == mount["mountPath"]
    assert pod["volumes"][1]["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]


def test_the_job_is_not_retried_is_cleaned_up_and_asks_for_no_gpu(dev_job):
    job = job_of(objects(dev_job))
    assert job["spec"]["backoffLimit"] == 0
    assert job["spec"]["ttlSecondsAfterFinished"] == 86400
    assert job["spec"]["activeDeadlineSeconds"] > 900 / 3
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert "nvidia.com/gpu" not in container["resources"]["limits"]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["NVIDIA_VISIBLE_DEVICES"] == "void"


def test_the_script_prints_the_result_between_the_markers_and_passes_shellcheck(dev_job):
    script = job_of(objects(dev_job))["spec"]["template"]["spec"]["containers"][0]["command"][2]
    lines = script.splitlines()
    assert lines.index(f"echo '{BEGIN_MARKER}'") < lines.index("cat /tmp/results/run-1.json")
    assert lines.index("cat /tmp/results/run-1.json") < lines.index(f"echo '{END_MARKER}'")
    assert shellcheck_findings(lines) == ""


def test_the_commands_to_run_it_come_first_as_comments(dev_job):
    comments = [line for line in dev_job.splitlines() if line.startswith("#")]
    assert "#   kubectl apply -f dpd-test-bench.yaml" in comments
    assert any("kubectl wait --for=condition=complete job/dpd-test-bench -n default" in c
               for c in comments)  # fmt: skip
    assert "#   kubectl logs job/dpd-test-bench -n default > dpd-test-bench.log" in comments


def test_a_rate_list_sweeps_one_run_per_rate(tmp_path, capsys):
    status, out, err = bench(
        tmp_path, capsys, None, "--endpoint", "dpd-test", "--account-id", "111122223333",
        "--rate", "1.5,3,4.5",
    )  # fmt: skip
    assert status == 0, err
    script = job_of(objects(out))["spec"]["template"]["spec"]["containers"][0]["command"][2]
    runs = [shlex.split(line) for line in script.splitlines() if line.startswith("vllm ")]
    assert [flag(r, "--request-rate") for r in runs] == ["1.5", "3", "4.5"]
    assert [flag(r, "--result-filename") for r in runs] == [
        "run-1.json",
        "run-2.json",
        "run-3.json",
    ]


def test_a_concurrency_workload_runs_a_closed_loop(tmp_path, capsys):
    endpoint = dev_endpoint()
    endpoint["workload"] = {"typicalInputTokens": 5000, "outputTokens": 512, "concurrency": 32}
    status, out, err = bench(
        tmp_path, capsys, with_endpoints(endpoint), "--endpoint", "dpd-test",
        "--account-id", "111122223333",
    )  # fmt: skip
    assert status == 0, err
    args = command(job_of(objects(out)))
    assert flag(args, "--max-concurrency") == "32" and "--request-rate" not in args
    assert int(flag(args, "--num-prompts")) >= 320


def test_a_hugging_face_model_reads_its_tokenizer_by_name_with_the_token_as_a_file(
    tmp_path, capsys
):
    endpoint = dev_endpoint()
    endpoint["modelSource"] = {
        "huggingFace": {
            "modelId": "meta-llama/Llama-3.3-70B-Instruct",
            "tokenSecretRef": {"name": "hf", "key": "token"},
        }
    }
    status, out, err = bench(tmp_path, capsys, with_endpoints(endpoint), "--endpoint", "dpd-test")
    assert status == 0, err
    documents = objects(out)
    assert [d["kind"] for d in documents] == ["NetworkPolicy", "Job"]
    job = job_of(documents)
    assert flag(command(job), "--tokenizer") == "meta-llama/Llama-3.3-70B-Instruct"
    pod = job["spec"]["template"]["spec"]
    env = {e["name"]: e["value"] for e in pod["containers"][0]["env"]}
    assert env["HF_TOKEN_PATH"] == "/var/run/secrets/huggingface/token"
    assert {"name": "hf-token", "secret": {"secretName": "hf", "items": [
        {"key": "token", "path": "token"}]}} in pod["volumes"]  # fmt: skip
    for document in documents:
        kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--endpoint", "nope"], "no endpoint 'nope'; its endpoints: dpd-test"),
        ([], "--endpoint: name the endpoint"),
        (["--endpoint", "dpd-test"], "--account-id: the Job reads the tokenizer"),
        (["--endpoint", "dpd-test", "--rate", "0"], "0 is not a request rate"),
        (["--endpoint", "dpd-test", "--rate", "nan"], "nan is not a request rate"),
        (["--endpoint", "dpd-test", "--rate", "fast"], "'fast' is not a number"),
        (["--endpoint", "dpd-test", "--record"], "--record belong to `bench results`"),
    ],
)  # fmt: skip
def test_bad_input_is_refused_in_one_line(tmp_path, capsys, flags, message):
    try:
        status, _, err = bench(tmp_path, capsys, None, *flags)
    except SystemExit as exited:  # argparse's own refusals
        status, err = exited.code, capsys.readouterr().err
    assert status == 2
    assert message in err and "Traceback" not in err


def test_an_endpoint_without_a_workload_is_refused_naming_the_key(tmp_path, capsys):
    endpoint = dev_endpoint()
    del endpoint["workload"]
    status, _, err = bench(tmp_path, capsys, with_endpoints(endpoint), "--endpoint", "dpd-test")
    assert status == 2
    assert err.startswith("endpoints[0].workload.outputTokens: the benchmark sends")


def test_a_rate_past_the_layouts_capacity_still_runs_five_minutes_of_arrivals():
    saturated = replace(PREDICTED, saturated=True, requests_per_second=2.0)
    load = Load(5000, 512, requests_per_second=6.0)
    assert prompt_count(load, saturated) >= 6 * 300
    # It drains at what the layout serves.
    assert BenchRun(load, 1800, saturated).seconds > 1800 / 2.0


def aggregated(**changes) -> dict:
    return with_endpoints(aggregated_endpoint(**changes))


def test_an_aggregated_endpoint_without_a_router_is_refused_naming_routing_strategy(
    tmp_path, capsys
):
    status, out, err = bench(
        tmp_path, capsys, aggregated(), "--endpoint", "dpd-test", "--account-id", "111122223333"
    )
    assert (status, out) == (2, "")
    assert err.startswith("hyperpod-dpd:endpoints[0].routingStrategy: the Job calls the endpoint")


def test_an_aggregated_endpoint_with_a_router_is_benchmarked_through_its_stable_address(
    tmp_path, capsys
):
    config = aggregated(routingStrategy="roundrobin")
    status, out, err = bench(
        tmp_path, capsys, config, "--endpoint", "dpd-test", "--account-id", "111122223333"
    )
    assert status == 0, err
    # The Job's command line, wherever it carries it.
    assert "http://dpd-test.default.svc.cluster.local:443" in out
    assert "dpd_decode_replicas=2" in out
