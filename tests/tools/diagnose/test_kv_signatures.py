"""The KV-transfer signatures (tools/diagnose/kv_signatures.py), through `hyperpod-dpd
diagnose` against a fake kubectl: LMCache's and the router's lines each give their finding,
with the stack key to change."""

from tests.support import config_file, dev_config
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
)
from tests.tools.diagnose.diagnosing import DECODE_LOG, diagnose, served
from tools.cli import main


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


def test_a_model_the_stack_cannot_size_is_diagnosed_without_the_sizing_figures(
    kubectl, capsys, tmp_path
):
    # An adopted endpoint of a model name the catalog does not know, as is often the case:
    # its settings are read from its pods' command line.
    config = dev_config()
    (endpoint,) = config["hyperpod-dpd:endpoints"]
    for key in ("tensorParallelSize", "gpuMemoryUtilization", "maxModelLen"):
        endpoint.pop(key, None)
    endpoint.update(modelName="house-model", adopted=True)
    dpd = {"PD_BUFFER_SIZE": str(8 * 2**30), "LMCACHE_SAVE_DECODE_CACHE": "False"}
    endpoint["environmentVariables"] = {**dpd, "PYTHONHASHSEED": "0"}
    config = config_file(tmp_path, config)
    logs = healthy_logs()
    logs[DECODE_LOG] = lmcache_config("receiver") + ENGINE_START + ALLOCATION_WAIT * 3
    served(kubectl, logs=logs)
    command = ["diagnose", "--stack", "test", "--config-file", config, "--endpoint", "dpd-test"]
    status = main(command)
    out, err = capsys.readouterr()
    assert status == 1, err
    assert "[pd-buffer-full]" in out and "try:    16 GiB, or endpoints[0].decode.replicas 2" in out


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
