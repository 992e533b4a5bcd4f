"""The pod signatures (tools/diagnose/pod_signatures.py), through `hyperpod-dpd diagnose`
against a fake kubectl or a saved bundle: an image that will not pull, weights still loading
and an engine that died each give their finding, and the commands they advise paste safely."""

import re

import pytest

from components.core.terminal_text import one_line
from components.endpoint.engines.tgi import TGI
from components.endpoint.spec import EndpointSpec
from tests.pasted import HOSTILE, paste
from tests.tools.diagnose import cluster_objects as objects
from tests.tools.diagnose.cluster_objects import (
    DECODE_POD,
    PREFILL_POD,
    healthy_logs,
    healthy_objects,
    model_pod,
    pod_list,
    write_cluster,
)
from tests.tools.diagnose.diagnosing import PREFILL_LOG, diagnose, served
from tools.diagnose.signatures import applicable


def test_a_pod_that_cannot_pull_its_image(kubectl, capsys):
    pods = healthy_objects()
    waiting = {"waiting": {"reason": "ImagePullBackOff", "message": "Back-off pulling image"}}
    pods["pods.json"] = pod_list(
        model_pod("prefill", PREFILL_POD, "7c9d8f6b5d", worker_ready=False, worker_state=waiting),
        model_pod("decode", DECODE_POD, "5f7b9c8d4f"),
    )
    pods["events.json"] = objects.event_list(
        objects.event(PREFILL_POD, "Failed", 'Failed to pull image "x": not found')
    )
    served(kubectl, pods)
    status, out, _ = diagnose(capsys)
    assert status == 1 and "[image-pull]" in out
    assert 'seen:   Failed: Failed to pull image "x": not found' in out
    assert "change: endpoints[0].image" in out


def test_a_worker_loading_for_half_an_hour(tmp_path, capsys):
    pods = healthy_objects()
    pods["pods.json"] = pod_list(
        model_pod("prefill", PREFILL_POD, "7c9d8f6b5d", worker_ready=False,
                  created="2026-12-05T14:25:00Z"),
        model_pod("decode", DECODE_POD, "5f7b9c8d4f"),
    )  # fmt: skip
    logs = healthy_logs()
    logs[PREFILL_LOG] = "INFO 12-05 14:26:01 [default_loader.py:267] Loading weights took 1.2s\n"
    # A bundle read at 15:00 (its captured.json): the pod has loaded since 14:25.
    bundle = write_cluster(tmp_path / "bundle", pods, logs)
    status, out, _ = diagnose(capsys, "--from", str(bundle))
    assert status == 1 and "[weights-loading]" in out and "2/3 Ready" in out
    assert "has not served for 35 min" in out


def test_an_engine_that_died_points_at_the_operator(kubectl, capsys):
    pods = healthy_objects()
    pods["pods.json"] = pod_list(
        model_pod("prefill", PREFILL_POD, "7c9d8f6b5d"),
        model_pod("decode", DECODE_POD, "5f7b9c8d4f", restarts=3),
    )
    logs = healthy_logs()
    logs[f"{DECODE_POD}.decode-dpd-test.previous.log"] = (
        "ERROR 12-05 14:10:02 [core_client.py:562] Engine core proc EngineCore_DP0 died "
        "unexpectedly, shutting down client.\n"
        "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.\n"
    )
    served(kubectl, pods, logs)
    status, out, _ = diagnose(capsys)
    assert status == 1 and "[engine-dead]" in out
    assert "EngineDeadError: EngineCore encountered an issue." in out
    assert "try:    v1.3.0-eksbuild.1 or later (operator 3.2" in out


@pytest.mark.parametrize("value", HOSTILE)
def test_the_commands_it_advises_paste_safely_whatever_a_bundle_names(tmp_path, capsys, value):
    pod = f"{PREFILL_POD}{value}"
    pods = healthy_objects()
    pods["pods.json"] = pod_list(
        model_pod("prefill", pod, "7c9d8f6b5d", worker_ready=False, created="2026-12-05T14:25:00Z"),
        model_pod("decode", DECODE_POD, "5f7b9c8d4f"),
    )
    logs = healthy_logs()
    del logs[PREFILL_LOG]
    logs[f"{pod}.prefill-dpd-test.log"] = "INFO Loading weights took 1.2s\n"
    bundle = write_cluster(tmp_path / "bundle", pods, logs)
    status, out, _ = diagnose(capsys, "--from", str(bundle))
    assert status == 1 and "[weights-loading]" in out
    (advised,) = re.findall(r"`(kubectl logs .*)`", out)
    pasted = paste([advised], tmp_path)
    assert pasted.created == []
    # What the terminal shows of the name, one line, is what the command names.
    shown = one_line(pod)
    assert pasted.calls == [["kubectl", "logs", shown, "-n", "default", "-c", "prefill-dpd-test"]]


def test_each_endpoint_is_read_for_the_signatures_of_its_engine_and_mode():
    base = {
        "name": "chat",
        "modelName": "Llama-3.1-8B-Instruct",
        "modelSource": {"s3": {"prefix": "llama"}},
        "instanceType": "ml.p5.48xlarge",
    }
    dpd = applicable(EndpointSpec.model_validate(base))
    assert dpd[1] == [] and "wrong-roles" in dpd[0] and "engine-death" in dpd[0]
    tgi = EndpointSpec.model_validate(
        {**base, "engine": "tgi", "image": TGI.image, "serving": {"gpus": 8}}
    )
    read, skipped = applicable(tgi)
    assert read == ["operator-failure", "no-pods", "image-or-mount", "still-loading"]
    assert skipped[0] == "engine-death" and "kv-not-retrieved" in skipped
