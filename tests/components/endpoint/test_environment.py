from typing import Any

import pytest

from components.endpoint.environment import check_environment, check_environment_from
from tests.components.endpoint.items import endpoint_item, endpoint_problem, endpoint_problems
from tests.support import by_code, dev_endpoint


def codes(env: dict[str, Any]) -> dict[str, list[tuple[str, str]]]:
    return by_code(check_environment(env))


@pytest.mark.parametrize(
    "env, code, field",
    [
        ({"PD_BUFFER_SIZE": "1"}, "pd-buffer-in-env", "environmentVariables.PD_BUFFER_SIZE"),
        ({"PYTHONHASHSEED": "42"}, "pinned-env", "environmentVariables.PYTHONHASHSEED"),
        (
            {"LMCACHE_SAVE_DECODE_CACHE": "True"},
            "pinned-env",
            "environmentVariables.LMCACHE_SAVE_DECODE_CACHE",
        ),
    ],
)
def test_a_variable_the_program_sets_is_refused_naming_it(env, code, field):
    assert ("error", field) in codes(env)[code]


def test_the_pinned_variables_restated_with_their_values_pass():
    assert "pinned-env" not in codes({"PYTHONHASHSEED": "0", "LMCACHE_SAVE_DECODE_CACHE": "False"})


REFUSED = [
    (
        {"environmentVariables": {"BLOB": "x" * (2 * 1024 * 1024)}},
        "environmentVariables.BLOB",
        "etcd's 1.5 MiB",
    ),
    *[
        (
            {"environmentVariables": {name: "0,1"}},
            f"environmentVariables.{name}",
            "the device plugin makes visible the GPUs prefill.gpus and decode.gpus request",
        )
        for name in ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES")
    ],
]


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_a_variable_kubernetes_or_the_device_plugin_would_undo_is_refused(changes, key, says):
    assert says in endpoint_problem(changes, key)


def env(name: str, value: str = "abc123") -> dict[str, Any]:
    """The dev endpoint's variables, and `name` set to `value`."""
    return {"environmentVariables": {**dev_endpoint()["environmentVariables"], name: value}}


REFUSED_WITH_THE_WAY = {
    **{
        f"{name} in environmentVariables": (
            env(name),
            f"environmentVariables.{name}: is a Hugging Face token in plain text; set "
            "modelSource.huggingFace.tokenConfigKey (a key encrypted with `pulumi config set "
            "--secret`) or tokenSecretRef (a Kubernetes Secret) instead",
        )
        for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")
    },
    **{
        f"{name} in environmentVariables": (
            env(name),
            f"environmentVariables.{name}: is an AWS credential in plain text; the pods get "
            "AWS access from IAM roles (the S3 CSI driver's reads the weights), so remove it",
        )
        for name in ("AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ACCESS_KEY_ID")
    },
    **{
        f"{name} in environmentVariables": (
            env(name),
            f"environmentVariables.{name}: looks like a credential, which would sit in plain "
            "text in the stack file, the Pulumi state and the InferenceEndpointConfig; keep "
            "credentials in a Kubernetes Secret, not in environmentVariables",
        )
        for name in ("WANDB_API_KEY", "VLLM_API_KEY", "DB_PASSWORD")
    },
    # Spellings neither huggingface_hub nor vLLM reads, which a command in the pod would.
    **{
        f"{name} in environmentVariables": (
            env(name),
            f"environmentVariables.{name}: is a Hugging Face token in plain text; set "
            "modelSource.huggingFace.tokenConfigKey (a key encrypted with `pulumi config set "
            "--secret`) or tokenSecretRef (a Kubernetes Secret) instead",
        )
        for name in ("HF_AUTH", "HFTOKEN", "hf-token", "HF_TOKEN_2", "HUGGINGFACE_API_KEY")
    },
    **{
        f"{name} in environmentVariables": (
            env(name),
            f"environmentVariables.{name}: looks like a credential, which would sit in plain "
            "text in the stack file, the Pulumi state and the InferenceEndpointConfig; keep "
            "credentials in a Kubernetes Secret, not in environmentVariables",
        )
        for name in ("REDIS_AUTH", "ADMIN_PASSPHRASE", "my.service.secret", "GITHUB_TOKEN1")
    },
    "a Hugging Face token under a name of no credential": (
        env("MY_SETTING", "hf_" + "abcdefghijklmnopq" * 2),
        "environmentVariables.MY_SETTING: holds what looks like a Hugging Face token, "
        "which would sit in plain text in the stack file, the Pulumi state and the "
        "InferenceEndpointConfig; keep credentials in a Kubernetes Secret (for a Hugging Face "
        "token, modelSource.huggingFace.tokenConfigKey or tokenSecretRef)",
    ),
}


@pytest.mark.parametrize("case", REFUSED_WITH_THE_WAY)
def test_a_secret_in_plain_text_is_refused_with_the_secret_backed_way(case):
    changes, line = REFUSED_WITH_THE_WAY[case]
    assert endpoint_problems(endpoint_item(changes)) == [line]


def test_a_large_but_reasonable_environment_passes():
    changes = {"environmentVariables": {"BIG": "x" * (200 * 1024)}}
    assert endpoint_problems(endpoint_item(changes)) == []


HOLD_NO_CREDENTIAL = {
    "variables that name tokens without holding one": env("HF_TOKEN_PATH", "/var/run/hf"),
    "a tokenizer setting": env("TOKENIZERS_PARALLELISM", "false"),
    "a switch about tokens": env("HF_HUB_DISABLE_IMPLICIT_TOKEN", "1"),
    "a file a token is read from": env("AWS_WEB_IDENTITY_TOKEN_FILE", "/var/run/token"),
    "a count of tokens": env("VLLM_MAX_TOKENS_PER_EXPERT", "4096"),
    "a switch about auth": env("VLLM_DISABLE_AUTH", "1"),
    "hf_transfer": env("HF_HUB_ENABLE_HF_TRANSFER", "hf_transfer"),
}


@pytest.mark.parametrize("case", HOLD_NO_CREDENTIAL)
def test_variables_that_hold_no_credential_pass(case):
    assert endpoint_problems(endpoint_item(HOLD_NO_CREDENTIAL[case])) == []


def test_a_variable_from_elsewhere_may_not_be_set_twice_or_be_the_programs():
    found = check_environment_from(
        ["HF_TOKEN", "NCCL_DEBUG", "PYTHONHASHSEED"], {"NCCL_DEBUG": "1"}
    )
    assert [(f.code, f.field) for f in found] == [
        ("env-from-owned", "environmentFrom.NCCL_DEBUG"),
        ("env-from-owned", "environmentFrom.PYTHONHASHSEED"),
    ]
    assert check_environment_from(["PYTHONHASHSEED"], {}, dpd=False) == []
