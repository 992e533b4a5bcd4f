"""The environment variables DPD needs on every prefill and decode pod.

The operator applies `worker.environmentVariables` to both roles alike; values are strings.
No Pulumi and no pydantic here: the policy pack imports this module too.
"""

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

# Names that hold credentials: a value under them would sit in plain text in the stack file,
# the Pulumi state and the InferenceEndpointConfig that anyone who reads the namespace reads.
HUGGING_FACE_TOKENS = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")
CREDENTIAL_SUFFIXES = (
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "API_KEY",
    "APIKEY",
    "ACCESS_KEY",
    "ACCESS_KEY_ID",
    "SECRET_KEY",
    "PRIVATE_KEY",
    "CREDENTIALS",
)


def credential_advice(name: str) -> str | None:
    """What to do instead of setting `name`, when it names a credential."""
    upper = name.upper()
    if upper in HUGGING_FACE_TOKENS:
        return (
            "is a Hugging Face token in plain text; set modelSource.huggingFace.tokenConfigKey "
            "(a key encrypted with `pulumi config set --secret`) or tokenSecretRef (a Kubernetes "
            "Secret) instead"
        )
    if upper.startswith("AWS_") and upper.endswith(CREDENTIAL_SUFFIXES):
        return (
            "is an AWS credential in plain text; the pods get AWS access from IAM roles (the S3 "
            "CSI driver's reads the weights), so remove it"
        )
    # Switches about credentials hold none (HF_HUB_DISABLE_IMPLICIT_TOKEN).
    switch = set(upper.split("_")) & {"DISABLE", "ENABLE", "USE", "NO", "SKIP", "ALLOW"}
    if not switch and (
        upper.endswith(tuple(f"_{suffix}" for suffix in CREDENTIAL_SUFFIXES))
        or upper in CREDENTIAL_SUFFIXES
    ):
        return (
            "looks like a credential, which would sit in plain text in the stack file, the "
            "Pulumi state and the InferenceEndpointConfig; keep credentials in a Kubernetes "
            "Secret, not in environmentVariables"
        )
    return None


# vLLM flags whose value is a credential (vllm serve --help: --api-key, --hf-token); a bare
# --hf-token reads the token of a `huggingface-cli login` and holds none.
CREDENTIAL_FLAGS = {
    "--hf-token": (
        "puts a Hugging Face token in plain text in the manifest; set "
        "modelSource.huggingFace.tokenConfigKey or tokenSecretRef instead"
    ),
    "--api-key": (
        "puts vLLM's API key in plain text in the stack file, the Pulumi state and the "
        "InferenceEndpointConfig; keep credentials out of the arguments"
    ),
}
