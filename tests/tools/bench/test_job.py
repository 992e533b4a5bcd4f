"""The bench Job (tools/bench/job.py): valid Kubernetes in the worker's image, not retried,
cleaned up, asking for no GPU, with the commands to run it first; the command refuses bad input
in one line (checkov scans the Job with the renders, tests/infra/test_checkov.py)."""

import kubernetes_validate
import pytest

from components.endpoint.image import DLC_IMAGE
from tests.support import aggregated_endpoint, dev_endpoint, with_endpoints
from tests.tools.bench.bench_job import (
    KUBERNETES_VERSION,
    bench,
    command,
    flag,
    job_of,
    objects,
)


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
    # The router in-cluster callers keep: the operator's, as dev keeps its names.
    assert flag(args, "--base-url") == (
        "http://dpd-test-default-routing-service.hyperpod-inference-system.svc.cluster.local:443"
    )
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


def test_the_job_is_not_retried_is_cleaned_up_and_asks_for_no_gpu(dev_job):
    job = job_of(objects(dev_job))
    assert job["spec"]["backoffLimit"] == 0
    assert job["spec"]["ttlSecondsAfterFinished"] == 86400
    assert job["spec"]["activeDeadlineSeconds"] > 900 / 3
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert "nvidia.com/gpu" not in container["resources"]["limits"]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["NVIDIA_VISIBLE_DEVICES"] == "void"


def test_the_commands_to_run_it_come_first_as_comments(dev_job):
    comments = [line for line in dev_job.splitlines() if line.startswith("#")]
    assert "#   kubectl apply -f dpd-test-bench.yaml" in comments
    assert any("kubectl wait --for=condition=complete job/dpd-test-bench -n default" in c
               for c in comments)  # fmt: skip
    assert "#   kubectl logs job/dpd-test-bench -n default > dpd-test-bench.log" in comments


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--endpoint", "nope"], "no endpoint 'nope'; its endpoints: dpd-test"),
        ([], "--endpoint: name the endpoint"),
        (["--endpoint", "dpd-test"], "--account-id: the Job reads the tokenizer"),
        (["--endpoint", "dpd-test", "--rate", "0"], "0 is not a request rate"),
        (["--endpoint", "dpd-test", "--rate", "nan"], "nan is not a request rate"),
        (["--endpoint", "dpd-test", "--rate", "fast"], "'fast' is not a number"),
        (["--endpoint", "dpd-test", "--record"], "unrecognized arguments: --record"),
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


def test_an_aggregated_endpoint_with_a_router_is_benchmarked_through_it(tmp_path, capsys):
    config = aggregated(routingStrategy="roundrobin")
    status, out, err = bench(
        tmp_path, capsys, config, "--endpoint", "dpd-test", "--account-id", "111122223333"
    )
    assert status == 0, err
    # The Job's command line, wherever it carries it.
    assert "http://dpd-test-default-routing-service.hyperpod-inference-system" in out
    assert "dpd_decode_replicas=2" in out
