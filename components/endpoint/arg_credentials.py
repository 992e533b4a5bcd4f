"""Credentials a command line must not carry: the manifest holds its arguments in plain text,
and so do the stack file and the Pulumi state (environment variables: environment.py; the L2
cache URL: routing.py)."""

import re
from collections.abc import Sequence

from components.core.findings import Finding, error
from components.endpoint.environment import credential_advice, credential_value_problem
from components.endpoint.flags import canonical_flag, flag_value, read_flag, split_flags

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
# Kubernetes expands $(NAME) in args from the container's environment (a variable a Secret
# fills through valueFrom): a reference, not a credential.
_KUBERNETES_REFERENCE = re.compile(r"^\$\([A-Za-z_][A-Za-z0-9_.-]*\)$")
# NAME=value inside an item: a shell's assignment, in a command such as `sh -c "HF_TOKEN=..."`.
_ASSIGNMENT = re.compile(r"(?<![A-Za-z0-9_])([A-Za-z_][A-Za-z0-9_]*)=([^\s;&|'\"]*)")
_OTHER_ENGINES_CREDENTIAL = (
    "puts a credential in plain text in the stack file, the Pulumi state and the "
    "InferenceEndpointConfig; keep credentials in a Kubernetes Secret"
)


def _written_value(value: str | None) -> bool:
    """Whether a flag's or an assignment's value writes something: not empty, and not a
    reference to where it is kept ($(NAME) for Kubernetes, $NAME or ${NAME} for a shell)."""
    return bool(value) and not (_KUBERNETES_REFERENCE.match(value) or value.startswith("$"))


def _credential_flag_problem(name: str, tokens: tuple[str, ...]) -> str | None:
    if not name.startswith("-") or not _written_value(flag_value(tokens)):
        return None
    flag = read_flag(name, CREDENTIAL_FLAGS) or canonical_flag(name)
    said = name if flag == name else f"{name} (vLLM reads it as {flag})"
    if flag in CREDENTIAL_FLAGS:
        return f"{said} {CREDENTIAL_FLAGS[flag]}"
    # Another engine's flag named as a credential (SGLang's --api-key, --hf-token of a script).
    if credential_advice(flag.lstrip("-")):
        return f"{said} {_OTHER_ENGINES_CREDENTIAL}"
    return None


def _credential_text_problem(token: str) -> str | None:
    if problem := credential_value_problem(token):
        return problem
    for name, value in _ASSIGNMENT.findall(token):
        if credential_advice(name) and _written_value(value):
            return f"sets {name}, which {_OTHER_ENGINES_CREDENTIAL.removeprefix('puts ')}"
    return None


def credential_problems(argv: Sequence[str]) -> list[tuple[int, str]]:
    """Each item (an index into `argv`) of any engine's command line that gives a credential
    away, with why: a credential flag with a value, an assignment to a credential's name (`sh -c
    "HF_TOKEN=..."`), or a known credential's shape. The messages never repeat the value."""
    found = []
    position = 0
    for name, tokens in split_flags(argv):
        problem = _credential_flag_problem(name, tokens)
        if problem:
            found.append((position, problem))
        else:
            found += [
                (position + i, problem)
                for i, token in enumerate(tokens)
                if (problem := _credential_text_problem(token))
            ]
        position += len(tokens)
    return found


def check_arg_credentials(lists: Sequence[tuple[str, object, Sequence[str]]]) -> list[Finding]:
    """Secrets in each list of arguments: its field, anything, and its items."""
    return [
        error("credential-in-args", f"{field}[{i}]", problem)
        for field, _, args in lists
        for i, problem in credential_problems(args)
    ]
