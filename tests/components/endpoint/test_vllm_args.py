from typing import Any

import pytest

from components.endpoint.flags import (
    flag_names,
    split_flags,
)
from components.endpoint.spec import EndpointSpec
from components.endpoint.vllm_args import check_args, merge_role_args, role_args, worker_args
from tests.components.endpoint.items import endpoint_item, endpoint_problem, endpoint_problems
from tests.components.endpoint.test_manifest import MINIMAL
from tests.support import by_code

WORKER = ["--model", "/opt/ml/model", "--port", "8000", "--gpu-memory-utilization", "0.75"]


def test_a_role_flag_present_in_worker_args_takes_the_role_value_in_place():
    merged = merge_role_args(WORKER, ["--gpu-memory-utilization", "0.6"])
    assert merged == [
        "--model",
        "/opt/ml/model",
        "--port",
        "8000",
        "--gpu-memory-utilization",
        "0.6",
    ]


def test_role_flags_absent_from_worker_args_are_appended_in_order():
    merged = merge_role_args(WORKER, ["--max-num-seqs", "16", "--enforce-eager"])
    assert merged == [*WORKER, "--max-num-seqs", "16", "--enforce-eager"]


def test_no_role_args_leaves_worker_args_unchanged():
    assert merge_role_args(WORKER, []) == WORKER


def test_an_equals_form_role_flag_replaces_the_spaced_worker_flag():
    merged = merge_role_args(["--port", "8000", "--x", "1"], ["--port=9000"])
    assert merged == ["--port=9000", "--x", "1"]


def test_tokens_before_the_first_flag_are_kept():
    assert merge_role_args(["serve", "--x", "1"], ["--x", "2"]) == ["serve", "--x", "2"]


# The rules on extra args: what the settings write, what the operator or sizing own, one
# command line per item.


def spec(**changes: Any) -> EndpointSpec:
    return EndpointSpec.model_validate({**MINIMAL, **changes})


def codes(**changes: Any) -> dict[str, list[tuple[str, str]]]:
    return by_code(check_args(spec(**changes)))


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"workerArgs": ["--max-model-len", "8192"]}, "workerArgs"),
        ({"decode": {"args": ["--max-num-seqs=8"]}}, "decode.args"),
    ],
)
def test_a_flag_the_settings_write_is_refused_in_extra_args(changes, field):
    assert ("error", field) in codes(**changes)["typed-flag-in-args"]


def test_a_flag_no_setting_writes_passes():
    assert "typed-flag-in-args" not in codes(workerArgs=["--enable-prefix-caching"])


def test_a_role_flag_owned_by_settings_names_the_role_setting():
    (finding,) = check_args(spec(prefill={"args": ["--gpu-memory-utilization", "0.5"]}))
    assert "prefill.gpuMemoryUtilization" in finding.message


def test_fixed_flags_cannot_be_moved():
    (finding,) = check_args(spec(workerArgs=["--host", "127.0.0.1"]))
    assert finding.message.startswith("--host is fixed")


def test_every_flag_the_settings_write_is_refused_in_extra_args():
    written = spec(prefill={"maxNumSeqs": 8, "gpuMemoryUtilization": 0.5})
    worker, prefill = (
        flag_names(worker_args(written)),
        flag_names(role_args(written, written.prefill)),
    )
    assert worker and prefill
    for flag in set(worker) - {"--model"}:
        assert codes(workerArgs=[flag, "1"]).get("typed-flag-in-args"), flag
    for flag in prefill:
        assert codes(prefill={"args": [flag, "1"]}).get("typed-flag-in-args"), flag


def test_a_model_of_its_own_replaces_the_mounted_one_with_a_warning():
    # AWS's KV cache notebooks load the model from Hugging Face beside a mounted source.
    own = spec(workerArgs=["--model", "openai/gpt-oss-20b"])
    assert codes(workerArgs=["--model", "openai/gpt-oss-20b"]) == {
        "model-not-mounted": [("warning", "workerArgs")]
    }
    assert [t for n, t in split_flags(worker_args(own)) if n == "--model"] == [
        ("--model", "openai/gpt-oss-20b")
    ]


def test_with_a_command_the_settings_flags_follow_its_module():
    # `python3 -m vllm.entrypoints.openai.api_server`: python3 would refuse a flag before -m.
    args = worker_args(spec(command=["python3"], workerArgs=["-m", "vllm.entrypoints.openai"]))
    assert args[:2] == ["-m", "vllm.entrypoints.openai"]
    assert "--tensor-parallel-size" in args[2:]


REFUSED = [
    (
        {"workerArgs": ["-tp", "4"]},
        "workerArgs",
        "written from tensorParallelSize",
    ),
    (
        {"workerArgs": ["--tensor_parallel_size", "4"]},
        "workerArgs",
        "vLLM reads it as --tensor-parallel-size",
    ),
    (
        {"workerArgs": ["--max_model_len=131072"]},
        "workerArgs",
        "written from maxModelLen",
    ),
    (
        {"workerArgs": ["--max-model", "8192"]},
        "workerArgs",
        "vLLM reads it as --max-model-len",
    ),
    (
        {"prefill.args": ["-tp=2"]},
        "prefill.args",
        "written from tensorParallelSize",
    ),
    (
        {"decode.args": ["--max_num_seqs", "64"]},
        "decode.args",
        "written from decode.maxNumSeqs",
    ),
    (
        {"workerArgs": ["--max-num-seqs", "64"]},
        "workerArgs",
        "prefill.maxNumSeqs and decode.maxNumSeqs",
    ),
    (
        {"prefill.args": ["--gpu_memory_utilization=0.9"]},
        "prefill.args",
        "prefill.gpuMemoryUtilization",
    ),
    (
        {"workerArgs": ["--kv-transfer-config", "{}"]},
        "workerArgs",
        "configures each role's KV transfer",
    ),
    (
        {"decode.args": ["--kv_transfer_config.kv_role", "kv_both"]},
        "decode.args",
        "configures each role's KV transfer",
    ),
    ({"workerArgs": ["-pp", "2"]}, "workerArgs", "not allowed above 1"),
    (
        {"workerArgs": ["--data_parallel_size=2"]},
        "workerArgs",
        "not allowed above 1",
    ),
    (
        {"workerArgs": ["--port=9000"]},
        "workerArgs",
        "written from modelInvocationPort.containerPort",
    ),
    ({"workerArgs": ["--host=::"]}, "workerArgs", "is fixed"),
    (
        {"workerArgs": ["--enable-prefix-caching --block-size 32"]},
        "workerArgs[0]",
        "several arguments in one list item",
    ),
    (
        {"prefill.args": ["--block-size", "32 --enforce-eager"]},
        "prefill.args[1]",
        "several arguments",
    ),
    (
        {"decode.maxNumSeqs": 50000},
        "decode.maxNumSeqs",
        "default max_num_batched_tokens of 8192",
    ),
    (
        {
            "prefill.maxNumSeqs": 4096,
            "prefill.args": ["--max-num-batched-tokens", "2k"],
        },
        "prefill.maxNumSeqs",
        "--max-num-batched-tokens 2000",
    ),
    (
        {
            "decode.args": [
                "--no-enable-chunked-prefill",
                "--max-num-batched-tokens",
                "4096",
            ]
        },
        "decode.args",
        "below maxModelLen 16384",
    ),
    *[
        ({"workerArgs": args}, "workerArgs[2]", "an empty argument")
        for args in (["--block-size", "32", ""], ["--enforce-eager", "--block-size=32", " "])
    ],
]


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_extra_args_that_would_override_a_setting_or_break_vllm_are_refused(changes, key, says):
    assert says in endpoint_problem(changes, key)


# Secrets in plain text.
CREDENTIALS_REFUSED = {
    "a Hugging Face token in vLLM's arguments": (
        {"workerArgs": ["--hf-token", "hf_abc"]},
        "workerArgs[0]: --hf-token puts a Hugging Face token in plain text in the "
        "manifest; set modelSource.huggingFace.tokenConfigKey or tokenSecretRef instead",
    ),
    "vLLM's API key in a role's arguments": (
        {"decode.args": ["--api_key=sk-abc"]},
        "decode.args[0]: --api_key (vLLM reads it as --api-key) puts vLLM's API key in "
        "plain text in the stack file, the Pulumi state and the InferenceEndpointConfig; keep "
        "credentials out of the arguments",
    ),
    "the token flag by a unique prefix, as argparse reads it": (
        {"workerArgs": ["--enforce-eager", "--hf-tok=abc123"]},
        "workerArgs[1]: --hf-tok (vLLM reads it as --hf-token) puts a Hugging "
        "Face token in plain text in the manifest; set modelSource.huggingFace.tokenConfigKey "
        "or tokenSecretRef instead",
    ),
}


@pytest.mark.parametrize("case", CREDENTIALS_REFUSED)
def test_a_credential_in_the_arguments_is_refused_with_the_secret_backed_way(case):
    changes, line = CREDENTIALS_REFUSED[case]
    assert endpoint_problems(endpoint_item(changes)) == [line]


VALID = [
    {"workerArgs": ["--enable-prefix-caching", "--block-size", "32"]},
    {"workerArgs": ['--compilation-config={"level": 3, "x": "a --b"}']},
    {
        "workerArgs": [
            "-O3",
            "--served-model-name",
            "llama",
            "--max-num-batched-tokens=16k",
        ]
    },
    {"workerArgs": ["--data-parallel-size", "1", "-pp=1"]},
    {"workerArgs": ["--model-impl", "vllm", "--model-loader-extra-config", "{}"]},
    {"decode.maxNumSeqs": 8192},
    {
        "decode.maxNumSeqs": 20000,
        "decode.args": ["--max-num-batched-tokens", "32K"],
    },
    {"workerArgs": ["--served-model-name", ""]},
    # The API key from the container's environment, which a Secret fills: Kubernetes expands
    # $(NAME) in args.
    {"workerArgs": ["--api-key", "$(VLLM_API_KEY)"]},
    {"workerArgs": ["--tokenizer", "meta-llama/Llama-3.3-70B-Instruct"]},
]


@pytest.mark.parametrize("case", VALID)
def test_unusual_but_valid_args_pass(case):
    assert endpoint_problems(endpoint_item(case)) == []


def test_a_bare_hf_token_reads_the_logins_token_and_passes():
    assert endpoint_problems(endpoint_item({"workerArgs": ["--hf-token"]})) == []
