"""`python -m infra diagnose` against a fake kubectl serving the API's objects and the pods'
logs: each known signature gives its finding, healthy logs give exit 0, and no access exit 2
with kubectl's error."""

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.tools.diagnose import cluster_objects as objects
from tests.tools.diagnose.cluster_objects import (
    ALLOCATION_WAIT,
    DECODE_POD,
    ENGINE_START,
    FAILED_RETRIEVAL,
    PREFILL_POD,
    ROUTER_POD,
    healthy_logs,
    healthy_objects,
    lmcache_config,
    model_pod,
    pod_list,
    write_cluster,
)
from tools.cli import main

DECODE_LOG = f"{DECODE_POD}.decode-dpd-test.log"
PREFILL_LOG = f"{PREFILL_POD}.prefill-dpd-test.log"


@pytest.fixture
def kubectl(tmp_path, monkeypatch):
    """A fake kubectl first on PATH; returns the folder it serves."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "kubectl"
    source = (Path(__file__).with_name("fake_kubectl.py")).read_text()
    script.write_text(f"#!{sys.executable}\n{source}")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return bin_dir / "cluster"


def diagnose(capsys, *flags):
    status = main(["diagnose", "--stack", "dev", "--endpoint", "dpd-test", *flags])
    out, err = capsys.readouterr()
    return status, out, err


def served(folder, objects_=None, logs=None):
    write_cluster(folder, objects_ or healthy_objects(), healthy_logs() if logs is None else logs)


def test_a_decoder_that_retrieves_nothing_and_waits_for_buffer_names_both_fixes(kubectl, capsys):
    logs = healthy_logs()
    logs[DECODE_LOG] = (
        lmcache_config("receiver") + ENGINE_START + FAILED_RETRIEVAL * 8 + ALLOCATION_WAIT * 3
    )
    served(kubectl, logs=logs)
    status, out, err = diagnose(capsys)
    assert status == 1, err
    assert "[kv-not-retrieved]" in out and "[pd-buffer-full]" in out
    assert "change: endpoints[0].environmentVariables.PYTHONHASHSEED" in out
    assert "change: endpoints[0].pdBufferSize" in out
    assert "Retrieved 0 out of 6035 required tokens (from 6035 total tokens). (8 such lines)" in out
    assert "Failed to allocate memory object, retrying..." in out
    # The sizing figure: what 8 GiB holds, and the next size that fits beside vLLM's share.
    assert "try:    16 GiB (now 8 GiB: 40 transfers of 5,000 tokens in flight" in out


def test_healthy_roles_and_transfers_are_healthy(kubectl, capsys):
    served(kubectl)
    status, out, err = diagnose(capsys)
    assert status == 0, out + err
    assert "healthy: none of the known DPD failure signatures" in out
    assert "pd_role sender" in out and "pd_role receiver" in out
    assert "8 of 8 KV retrievals moved tokens, median 176.2 GB/s" in out
    assert "router: 22 requests, 91% disaggregated (threshold 4096)" in out


def test_it_reads_only_whole_objects_and_logs(kubectl, capsys):
    served(kubectl)
    diagnose(capsys)
    commands = [json.loads(line) for line in (kubectl / "commands.log").read_text().splitlines()]
    assert {c[0] for c in commands} == {"get", "logs"}
    assert all(c[-2:] == ["-o", "json"] for c in commands if c[0] == "get")
    assert not any("jsonpath" in " ".join(c) for c in commands)
    logged = {(c[1], c[c.index("-c") + 1]) for c in commands if c[0] == "logs"}
    assert logged == {
        (PREFILL_POD, "prefill-dpd-test"),
        (DECODE_POD, "decode-dpd-test"),
        (ROUTER_POD, "router-container"),
    }


def test_no_access_is_exit_2_with_kubectls_error_in_one_line(kubectl, capsys):
    served(kubectl)
    (kubectl / "denied.txt").write_text(
        "E1205 14:00:01.000000   12 memcache.go:265] couldn't get current server API group\n"
        "error: You must be logged in to the server (Unauthorized)\n"
    )
    status, out, err = diagnose(capsys)
    assert status == 2 and out == ""
    assert err.strip().endswith("error: You must be logged in to the server (Unauthorized)")
    assert len(err.strip().splitlines()) == 1


def test_an_endpoint_that_is_not_there_is_exit_2(kubectl, capsys):
    served(kubectl)
    (kubectl / "iec.json").unlink()
    status, _, err = diagnose(capsys)
    assert status == 2 and "Error from server (NotFound)" in err


def test_without_kubectl_it_says_so(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    status, _, err = diagnose(capsys)
    assert status == 2 and "kubectl: not found on PATH" in err


def test_a_saved_bundle_diagnoses_the_same_offline(kubectl, tmp_path, capsys):
    logs = healthy_logs()
    logs[DECODE_LOG] += ALLOCATION_WAIT
    served(kubectl, logs=logs)
    saved = tmp_path / "ticket"
    status, live, _ = diagnose(capsys, "--save", str(saved))
    assert status == 1 and f"diagnose --from {saved}" in live
    shutil.rmtree(kubectl)
    status, offline, _ = diagnose(capsys, "--from", str(saved))
    assert status == 1

    def body(out: str) -> list[str]:
        kept = out.split("\n\nSaved")[0].strip().splitlines()
        return [line for line in kept if not line.startswith("  read ")]

    assert body(offline) == body(live)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("pods.json", "[" * 50_000, "pods.json: not the JSON kubectl writes"),
        ("captured.json", "{}", "no captured.json with capturedAt"),
    ],
)
def test_a_broken_bundle_is_exit_2(tmp_path, capsys, name, text, message):
    folder = write_cluster(tmp_path / "bundle", healthy_objects(), healthy_logs())
    (folder / name).write_text(text)
    status, _, err = diagnose(capsys, "--from", str(folder))
    assert status == 2 and message in err and "Traceback" not in err


def test_objects_of_another_shape_are_no_crash(tmp_path, capsys):
    odd = {**healthy_objects(), "pods.json": {"items": [1, "x", {"metadata": []}]}}
    folder = write_cluster(tmp_path / "bundle", odd, {})
    status, out, _ = diagnose(capsys, "--from", str(folder))
    assert status == 1 and "[no-dpd-pods]" in out


def test_both_roles_on_the_same_pd_role_is_the_operators_wiring(kubectl, capsys):
    logs = healthy_logs()
    logs[DECODE_LOG] = lmcache_config("sender") + ENGINE_START
    served(kubectl, logs=logs)
    status, out, _ = diagnose(capsys)
    assert status == 1 and "[pd-role]" in out
    assert f"{DECODE_POD} (decode): 'pd_role': 'sender'" in out
    assert "change: operator.addonVersion" in out


def test_kv_under_1_gb_per_second_is_efa_not_in_use(kubectl, capsys):
    logs = healthy_logs()
    logs[DECODE_LOG] = (
        lmcache_config("receiver")
        + (
            "[Worker_TP0] [LMCache INFO] [req_id=cmpl-1] Retrieved 6035 out of 6035 required "
            "tokens (from 6035 total tokens). size: 0.2344 gb, cost 390.2 ms, throughput: "
            "0.6007 GB/s;\n"
        )
        * 4
    )
    served(kubectl, logs=logs)
    status, out, _ = diagnose(capsys)
    assert status == 1 and "[kv-over-tcp]" in out
    assert "KV moves at 0.601 GB/s (median of 4 transfers), under 1 GB/s" in out


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


def test_short_prompts_against_a_long_workload_are_the_routing_share(kubectl, capsys):
    logs = healthy_logs()
    logs[f"{ROUTER_POD}.router-container.log"] = objects.routing_log(long=2, short=20)
    served(kubectl, logs=logs)
    status, out, _ = diagnose(capsys)
    assert status == 1 and "[routing-share]" in out
    assert "9% of 22 requests took the disaggregated path" in out
    assert "change: endpoints[0].workload.typicalInputTokens" in out


def test_an_unset_hash_seed_on_a_pod_is_named(kubectl, capsys):
    pods = healthy_objects()
    pods["pods.json"] = pod_list(
        model_pod("prefill", PREFILL_POD, "7c9d8f6b5d", env=objects.ENV[:3]),
        model_pod("decode", DECODE_POD, "5f7b9c8d4f"),
    )
    logs = healthy_logs()
    logs[DECODE_LOG] = lmcache_config("receiver") + FAILED_RETRIEVAL
    served(kubectl, pods, logs)
    status, out, _ = diagnose(capsys)
    assert status == 1 and f"{PREFILL_POD} runs PYTHONHASHSEED=(unset)" in out
