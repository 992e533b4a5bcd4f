"""The bench Job (tools/bench/job.py): valid Kubernetes in the worker's image, not retried,
cleaned up, asking for no GPU, with the commands to run it first; the command refuses bad input
in one line (checkov scans the Job with the renders, tests/infra/test_checkov.py)."""

import kubernetes_validate
import pytest

from components.endpoint.engines.tgi import TGI
from components.endpoint.image import DLC_IMAGE
from components.endpoint.spec import EndpointSpec
from tests.support import aggregated_endpoint, dev_endpoint, with_endpoints
from tests.tools.bench.bench_job import (
    KUBERNETES_VERSION,
    bench,
    command,
    flag,
    job_of,
    objects,
)
from tools.bench.job import CLIENT_IMAGE, job_placement, node_reserve


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


def test_an_aggregated_endpoint_without_a_router_is_benchmarked_through_a_service_of_its_pods(
    tmp_path, capsys
):
    status, out, err = bench(
        tmp_path, capsys, aggregated(), "--endpoint", "dpd-test", "--account-id", "111122223333"
    )
    assert status == 0, err
    documents = objects(out)
    (service,) = [d for d in documents if d["kind"] == "Service"]
    object_name = service["spec"]["selector"]["app"]
    assert object_name == "dpd-test"  # the live object's pods
    assert flag(command(job_of(documents)), "--base-url") == (
        "http://dpd-test-bench.default.svc.cluster.local:8000"
    )
    (policy,) = [d for d in documents if d["kind"] == "NetworkPolicy"]
    assert {"podSelector": {"matchLabels": {"app": object_name}}} in policy["spec"]["egress"][0][
        "to"
    ]
    for document in documents:
        kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)


def test_a_tgi_endpoint_is_benchmarked_from_the_vllm_client_image_over_openais_chat_api(
    tmp_path, capsys
):
    endpoint = aggregated_endpoint(engine="tgi", image=TGI.image, tensorParallelSize=8)
    del endpoint["kvCache"]  # vLLM's only
    config = with_endpoints(endpoint)
    status, out, err = bench(
        tmp_path, capsys, config, "--endpoint", "dpd-test", "--account-id", "111122223333"
    )
    assert status == 0, err
    job = job_of(objects(out))
    assert job["spec"]["template"]["spec"]["containers"][0]["image"] == CLIENT_IMAGE
    args = command(job)
    assert args[:3] == ["vllm", "bench", "serve"]
    assert (flag(args, "--backend"), flag(args, "--endpoint")) == (
        "openai-chat",
        "/v1/chat/completions",
    )
    assert flag(args, "--base-url").endswith(":8080")  # TGI's port


def test_an_aggregated_endpoint_with_a_router_is_benchmarked_through_it(tmp_path, capsys):
    config = aggregated(routingStrategy="roundrobin")
    status, out, err = bench(
        tmp_path, capsys, config, "--endpoint", "dpd-test", "--account-id", "111122223333"
    )
    assert status == 0, err
    # The Job's command line, wherever it carries it.
    assert "http://dpd-test-default-routing-service.hyperpod-inference-system" in out
    assert "dpd_decode_replicas=2" in out


def small_endpoint(**changes) -> EndpointSpec:
    return EndpointSpec.model_validate(
        {
            "name": "small",
            "modelName": "Llama-3.1-8B-Instruct",
            "modelSource": {"s3": {"prefix": "llama"}},
            "instanceType": "ml.g6e.2xlarge",
            "tensorParallelSize": 1,
            "serving": {"gpus": 1},
            **changes,
        }
    )


def test_on_a_small_node_the_job_asks_what_the_endpoints_pod_and_the_reserve_leave():
    endpoint = small_endpoint()
    placement = job_placement(endpoint)
    assert placement.beside
    pod_cpu = int(endpoint.worker_resources.requests["cpu"])  # 4 of the node's 8
    reserved_cpu, _ = node_reserve(8)
    assert 1 <= placement.cpu <= 8 - pod_cpu - reserved_cpu
    assert "on a node of the endpoint's type: a ml.g6e.2xlarge node has" in placement.why


def test_where_the_endpoints_pods_leave_too_little_the_job_runs_on_any_node():
    crowded = small_endpoint(workerResources={"requests": {"cpu": "7", "memory": "60Gi"}})
    placement = job_placement(crowded)
    assert (placement.beside, placement.cpu) == (False, 4)
    assert placement.why.startswith("on any node with room")
