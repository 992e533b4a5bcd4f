"""Credentials a command line must not carry."""

import pytest

from components.endpoint.arg_credentials import credential_problems

TOKEN = "hf_" + "abcdefghijklmnopq" * 2
# Command lines of any engine, as worker.command and its args give them.
ARGV_CREDENTIALS = {
    "SGLang's API key": (["python3", "-m", "sglang.launch_server", "--api-key", "s3cret"], 3),
    "a prefix of vLLM's token flag": (["vllm", "serve", "--hf_tok=abc"], 2),
    "another engine's token flag": (["launcher", "--huggingface-hub-token", "abc"], 1),
    "a token assigned in a shell command": (["sh", "-c", "HF_TOKEN=abc vllm serve /m"], 2),
    "a password exported in a shell command": (["sh", "-c", "export REDIS_AUTH=pw; run"], 2),
    "a token's shape, whatever surrounds it": (["sh", "-c", f"curl -H 'Bearer {TOKEN}' x"], 2),
    "an AWS key ID as a value": (["--aws-key-id", "AKIA" + "ABCDEFGHIJKLMN23"], 1),
}


@pytest.mark.parametrize("case", ARGV_CREDENTIALS)
def test_a_credential_anywhere_in_a_command_line_is_found_at_its_item(case):
    argv, index = ARGV_CREDENTIALS[case]
    ((found, message),) = credential_problems(argv)
    assert found == index
    assert TOKEN not in message and "abc" not in message


@pytest.mark.parametrize(
    "argv",
    [
        ["vllm", "serve", "/opt/ml/model", "--hf-token"],
        ["vllm", "serve", "--api-key", "$(VLLM_API_KEY)"],
        ["sh", "-c", "HF_TOKEN=$(cat /var/run/secrets/hf/token) exec vllm serve /m"],
        ["sh", "-c", 'export HF_TOKEN="${HF_TOKEN_FROM_SECRET}"; exec vllm serve /m'],
        ["--tokenizer", "meta-llama/Llama-3.3-70B-Instruct", "--ssl-keyfile", "/tls/key.pem"],
        ["--max-num-batched-tokens", "8192", "--disable-auth"],
    ],
)
def test_a_command_line_that_only_points_at_its_credentials_passes(argv):
    assert credential_problems(argv) == []
