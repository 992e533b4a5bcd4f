"""The environment variables DPD needs on every prefill and decode pod.

The operator applies `worker.environmentVariables` to both roles alike; values are strings.
No Pulumi and no pydantic here: the policy pack imports this module too.
"""

import re
from collections.abc import Iterable, Mapping

from components.core.credentials import credential_in, secret_key_under
from components.core.findings import Finding, error

# Bytes of decoder GPU buffer per tensor-parallel rank for incoming KV; sized per endpoint.
PD_BUFFER_SIZE = "PD_BUFFER_SIZE"

# Variables whose value DPD cannot do without.
PINNED_ENV = {
    # The prefiller is the source of truth for cache hits; the decoder keeps no L1 copy.
    "LMCACHE_SAVE_DECODE_CACHE": "False",
    # LMCache keys its cache on Python's hash() of the prompt tokens. An unpinned seed makes
    # prefill and decode disagree, and the decoder recomputes everything ("Retrieved 0 out of N").
    "PYTHONHASHSEED": "0",
}


def shared_cache_keys(shared: bool, most_pods: int) -> dict[str, str]:
    """The hash seed of colocated pods that read each other's cache (an L2 backend, or kvaware
    routing): LMCache's keys agree across pods only with it pinned, as in every AWS sample with
    routing or an L2 cache (aws/sagemaker-hyperpod-cli, inference-operator config/samples)."""
    seed = "PYTHONHASHSEED"
    return {seed: PINNED_ENV[seed]} if shared and most_pods > 1 else {}


# Which GPUs a pod sees is the NVIDIA device plugin's to say (its `envvar` strategy sets
# NVIDIA_VISIBLE_DEVICES): a value here would hide GPUs tensorParallelSize counts on, or expose
# another pod's.
DEVICE_PLUGIN_ENV = ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES")

# Names that hold credentials, whose value would sit in plain text in the stack file, the state
# and the manifest: huggingface_hub's HF_TOKEN and HUGGING_FACE_HUB_TOKEN (utils/_auth.py), and
# any name ending in a credential's word, with or without a separator or a number (HF_TOKEN_2).
HUGGING_FACE_TOKENS = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")
CREDENTIAL_SUFFIXES = (
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "AUTH",
    "AUTHORIZATION",
    "APIKEY",
    "API_KEY",
    "ACCESS_KEY",
    "ACCESS_KEY_ID",
    "SECRET_KEY",
    "PRIVATE_KEY",
    "CREDENTIAL",
    "CREDENTIALS",
)
# Words of switches about credentials, which hold none (HF_HUB_DISABLE_IMPLICIT_TOKEN).
SWITCH_WORDS = {"DISABLE", "ENABLE", "USE", "NO", "SKIP", "ALLOW"}
_TRAILING_NUMBER = re.compile(r"_?[0-9]+$")


def credential_advice(name: str) -> str | None:
    """What to do instead of setting `name`, when it names a credential."""
    upper = name.upper()
    words = re.sub(r"[-.]", "_", upper)
    bare = _TRAILING_NUMBER.sub("", words)
    if set(words.split("_")) & SWITCH_WORDS or not bare.endswith(CREDENTIAL_SUFFIXES):
        return None
    if upper in HUGGING_FACE_TOKENS or upper.startswith(("HF", "HUGGING")):
        return (
            "is a Hugging Face token in plain text; set modelSource.huggingFace.tokenConfigKey "
            "(a key encrypted with `pulumi config set --secret`) or tokenSecretRef (a Kubernetes "
            "Secret) instead"
        )
    if upper.startswith("AWS"):
        return (
            "is an AWS credential in plain text; the pods get AWS access from IAM roles (the S3 "
            "CSI driver's reads the weights), so remove it"
        )
    return (
        "looks like a credential, which would sit in plain text in the stack file, the "
        "Pulumi state and the InferenceEndpointConfig; keep credentials in a Kubernetes "
        "Secret, not in environmentVariables"
    )


def credential_value_problem(text: str) -> str | None:
    """Why `text`, written in plain text, gives a credential away; it never repeats `text`."""
    kind = credential_in(text)
    if kind is None:
        return None
    return (
        f"holds what looks like {kind}, which would sit in plain text in the stack file, the "
        "Pulumi state and the InferenceEndpointConfig; keep credentials in a Kubernetes Secret "
        "(for a Hugging Face token, modelSource.huggingFace.tokenConfigKey or tokenSecretRef)"
    )


# The environment's share of the object, which must fit etcd's 1.5 MiB with its managedFields,
# as must each role's Deployment: larger content belongs in the model's files.
ENVIRONMENT_MAX_BYTES = 256 * 1024


def _size(env: Mapping[str, str]) -> list[Finding]:
    size = sum(len(k.encode()) + len(v.encode()) for k, v in env.items())
    if size <= ENVIRONMENT_MAX_BYTES:
        return []
    largest = max(env, key=lambda k: len(env[k].encode()))
    return [
        error(
            "environment-too-large",
            f"environmentVariables.{largest}",
            f"the variables hold {size // 1024} KiB ({largest} alone "
            f"{len(env[largest].encode()) // 1024} KiB), over the {ENVIRONMENT_MAX_BYTES // 1024} "
            "KiB this stack allows so the object fits etcd's 1.5 MiB limit; ship large content "
            "with the model's files instead",
        )
    ]


def check_environment_from(
    names: Iterable[str], env: Mapping[str, str], *, dpd: bool = True
) -> list[Finding]:
    """environmentFrom may name no variable environmentVariables sets, and none the program
    or the device plugin writes."""
    owned = {*DEVICE_PLUGIN_ENV, *((PD_BUFFER_SIZE, *PINNED_ENV) if dpd else ())}
    found = []
    for name in names:
        if name in env:
            why = "environmentVariables sets it too, and the pod would get it twice; keep one"
        elif name in owned:
            why = "the program writes it (or the device plugin does), from its own setting"
        else:
            continue
        found.append(error("env-from-owned", f"environmentFrom.{name}", f"is not allowed: {why}"))
    return found


def check_environment(env: Mapping[str, str], *, dpd: bool = True) -> list[Finding]:
    """`environmentVariables`; fields are relative to the endpoint. The DPD variables are the
    program's only on a DPD endpoint (`dpd`)."""
    found = _size(env)
    if dpd and PD_BUFFER_SIZE in env:
        found.append(
            error(
                "pd-buffer-in-env",
                f"environmentVariables.{PD_BUFFER_SIZE}",
                f"{env[PD_BUFFER_SIZE]!r} is not allowed here; set pdBufferSize instead",
            )
        )
    roles = "prefill.gpus and decode.gpus" if dpd else "serving.gpus"
    found += [
        error(
            "gpus-in-env",
            f"environmentVariables.{name}",
            f"{env[name]!r} is not allowed here: the device plugin makes visible the GPUs "
            f"{roles} request; set those instead",
        )
        for name in DEVICE_PLUGIN_ENV
        if name in env
    ]
    found += [
        error("credential-in-env", f"environmentVariables.{name}", advice)
        for name, value in env.items()
        if (
            advice := credential_advice(name)
            or credential_value_problem(value)
            or (
                credential_advice("AWS_SECRET_ACCESS_KEY")
                if secret_key_under(name, value)
                else None
            )
        )
    ]
    for name, required in PINNED_ENV.items() if dpd else ():
        if name in env and env[name] != required:
            found.append(
                error(
                    "pinned-env",
                    f"environmentVariables.{name}",
                    f"{env[name]!r} breaks DPD; the only allowed value is {required!r}",
                )
            )
    return found


def credentials_in(value: object, path: str, code: str = "credential-in-manifest") -> list[Finding]:
    """A credential shaped value anywhere in a structure the manifest carries in plain text
    (overrides, an init container's env, a probe's header, ...), by its path."""
    if isinstance(value, dict):
        return [f for k, v in value.items() for f in credentials_in(v, f"{path}.{k}", code)]
    if isinstance(value, list):
        return [f for i, v in enumerate(value) for f in credentials_in(v, f"{path}[{i}]", code)]
    problem = credential_value_problem(value) if isinstance(value, str) else None
    return [error(code, path, problem)] if problem else []
