"""The vLLM command line each role's pods run: the flags the settings write, and the extra args
(workerArgs, prefill.args, decode.args) after them. The operator starts each DPD pod with
`worker.args` merged with its role's `args`: a flag present in both takes the role's value in
place, and the role's other flags are appended.

vLLM reads its flags more loosely than their spelling in its help (vllm/utils/argparse_utils.py
`FlexibleArgumentParser.parse_args` and vllm/engine/arg_utils.py `EngineArgs.add_cli_args`):
- in a long flag, `_` and `-` are the same up to the first `.`: `--max_model_len` is
  `--max-model-len`;
- `--flag=value` is `--flag value`, and `--json-flag.key value` sets one key of a JSON flag;
- some flags have short aliases: `-tp` for `--tensor-parallel-size`, `-pp`, `-dp`, ...;
- argparse's default `allow_abbrev` lets a unique prefix stand for a long flag
  (`--tensor-parallel 4`).
`canonical_flag` folds the first three; `read_flag` takes the prefixes of the flags asked about.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from components.core.findings import Finding, error, warning
from components.endpoint.engines.engine import VLLM
from components.endpoint.environment import credential_advice, credential_value_problem
from components.endpoint.roles import RoleSpec, vllm_default_max_num_batched_tokens
from components.endpoint.spec import EndpointSpec

Flag = tuple[str, tuple[str, ...]]

# vLLM's short aliases (EngineArgs.add_cli_args, vLLM 0.11 to 0.19). `-O` takes its value
# glued on too (`-O3`).
SHORT_ALIASES = {
    "-tp": "--tensor-parallel-size",
    "-pp": "--pipeline-parallel-size",
    "-dp": "--data-parallel-size",
    "-dcp": "--decode-context-parallel-size",
    "-dpn": "--data-parallel-rank",
    "-dpr": "--data-parallel-start-rank",
    "-dpl": "--data-parallel-size-local",
    "-dpa": "--data-parallel-address",
    "-dpp": "--data-parallel-rpc-port",
    "-dpb": "--data-parallel-backend",
    "-O": "--compilation-config",
}
# A short option starts with one dash and a letter; "-1" is a value.
_SHORT_OPTION = re.compile(r"^-[A-Za-z]")
# Another option inside one token: whitespace, then a long flag or one of the short aliases.
_EMBEDDED_OPTION = re.compile(
    r"\s(?:--[A-Za-z]|-(?:" + "|".join(a[1:] for a in SHORT_ALIASES) + r")(?=[\s=0-9]|$))"
)


def is_option(token: str) -> bool:
    return (token.startswith("--") and len(token) > 2) or bool(_SHORT_OPTION.match(token))


def flag_name(token: str) -> str:
    return token.split("=", 1)[0]


def canonical_flag(name: str) -> str:
    """The long flag vLLM reads `name` as: `--max_model_len` -> `--max-model-len`,
    `--kv-transfer-config.kv_role` -> `--kv-transfer-config`, `-tp` -> `--tensor-parallel-size`."""
    if name.startswith("--"):
        return "--" + name[2:].split(".", 1)[0].replace("_", "-")
    if name.startswith("-O"):
        return SHORT_ALIASES["-O"]
    return SHORT_ALIASES.get(name, name)


def flag_value(tokens: Sequence[str]) -> str | None:
    """The value a flag's tokens give it: after `=`, else the next token."""
    if "=" in tokens[0]:
        return tokens[0].split("=", 1)[1]
    return tokens[1] if len(tokens) > 1 else None


def holds_several_arguments(token: str) -> bool:
    """Whether one argv item holds a whole command line (`"--a --b 32"`): Kubernetes passes it
    to vLLM as one argument, which vLLM cannot parse. JSON values may hold anything."""
    name, _, value = token.partition("=")
    if is_option(token) and re.search(r"\s", name):
        return True
    text = value if is_option(token) else token
    return not text.lstrip().startswith(("{", "[")) and bool(_EMBEDDED_OPTION.search(text))


def split_flags(args: Sequence[str]) -> list[Flag]:
    """Group an argument list into (flag name, tokens) pairs, keeping every token.

    A flag owns the tokens up to the next option, so `--x 1`, `--x=1`, `-tp 4` and a bare
    boolean `--enforce-eager` all come out as one entry. Tokens before the first flag
    are kept under the empty name.
    """
    flags: list[Flag] = []
    for token in args:
        if is_option(token):
            flags.append((flag_name(token), (token,)))
        elif flags:
            name, tokens = flags[-1]
            flags[-1] = (name, (*tokens, token))
        else:
            flags.append(("", (token,)))
    return flags


def flag_names(args: Sequence[str]) -> list[str]:
    return [name for name, _ in split_flags(args) if name]


def merge_role_args(worker_args: Sequence[str], role_args: Sequence[str]) -> list[str]:
    role = dict(split_flags(role_args))
    merged: list[str] = []
    for name, tokens in split_flags(worker_args):
        merged.extend(role.pop(name) if name in role else tokens)
    for tokens in role.values():
        merged.extend(tokens)
    return merged


# vLLM serves the model where the operator mounts it, on the worker's modelInvocationPort.
MODEL_PATH = "/opt/ml/model"
# The flags every pod gets whatever the settings say.
FIXED_WORKER_FLAGS = {"--model": MODEL_PATH, "--host": "0.0.0.0"}


def worker_flags(spec: EndpointSpec) -> dict[str, tuple[str | None, str | None]]:
    """The flags the program writes on every pod: each with its value (None: left out, for
    vLLM's own) and the setting that controls it (None: fixed). Extra args may not repeat
    them, even left out, or the settings would stop describing what runs."""
    fixed = {flag: (value, None) for flag, value in FIXED_WORKER_FLAGS.items()}
    if own_model(spec):
        fixed["--model"] = (None, None)
    return {
        **fixed,
        "--port": (
            str(spec.container_port),
            "modelInvocationPort.containerPort",
        ),
        "--tensor-parallel-size": (str(spec.tensor_parallel_size), "tensorParallelSize"),
        "--max-model-len": (
            None if spec.max_model_len is None else str(spec.max_model_len),
            "maxModelLen",
        ),
        "--gpu-memory-utilization": (str(spec.gpu_memory_utilization), "gpuMemoryUtilization"),
    }


def role_flags(role: RoleSpec) -> dict[str, tuple[float | int | None, str]]:
    """The flags a role's settings write when set: each with its value and its setting, named
    relative to the role. In workerArgs they would stand for both roles' settings (there, the
    operator's --max-num-seqs of 16 and 32, which sizing and autoscaling assume)."""
    return {
        "--gpu-memory-utilization": (role.gpu_memory_utilization, "gpuMemoryUtilization"),
        "--max-num-seqs": (role.max_num_seqs, "maxNumSeqs"),
    }


def own_model(spec: EndpointSpec) -> str | None:
    """The model workerArgs or the command load in place of the mounted weights, if they name
    one (`--model openai/gpt-oss-20b`, as AWS's KV cache notebooks do)."""
    for args in (spec.worker_args, spec.command or []):
        for name, tokens in split_flags(args):
            if name and read_flag(name, ("--model",)) == "--model":
                return flag_value(tokens)
    return None


def worker_args(spec: EndpointSpec) -> list[str]:
    flags = worker_flags(spec).items()
    written = [token for flag, (value, _) in flags if value is not None for token in (flag, value)]
    if spec.command:
        # `python3` then `-m vllm.entrypoints.openai.api_server`: the module comes first, and
        # the settings' flags after it, where the server's parser reads them.
        return spec.worker_args + written
    return written + spec.worker_args


def role_args(role: RoleSpec) -> list[str]:
    flags = role_flags(role).items()
    written = [t for flag, (value, _) in flags if value is not None for t in (flag, str(value))]
    return written + role.args


def effective_args(spec: EndpointSpec, role: RoleSpec) -> list[str]:
    """The vLLM command line a role's pods run, after the operator's merge."""
    return merge_role_args(worker_args(spec), role_args(role))


# Flags no setting writes but that break what the settings describe. The operator wires each
# role's KV transfer (producer on prefill, consumer on decode). Pipeline, data and decode-context
# parallelism multiply the GPUs a pod needs and change the KV per rank, while the GPU requests
# and the KV sizing assume one tensor-parallel group per pod: those may only say 1.
FIXED_FLAGS = {
    "--kv-transfer-config": "the operator configures each role's KV transfer for DPD",
}
ONE_ONLY_FLAGS = (
    "--pipeline-parallel-size",
    "--data-parallel-size",
    "--decode-context-parallel-size",
)


def read_flag(name: str, flags: Iterable[str]) -> str | None:
    """The flag among `flags` that vLLM reads `name` as: its canonical form, or a unique prefix
    of one (argparse's allow_abbrev: `--hf-tok` is `--hf-token`). The one reader of both the
    owned flags and the credential flags, so neither can be walked around by a spelling the
    other reads."""
    known = set(flags)
    flag = canonical_flag(name)
    if flag in known:
        return flag
    prefixed = {one for one in known if one.startswith(flag)}
    if flag.startswith("--") and len(flag) > 3 and len(prefixed) == 1:
        return prefixed.pop()
    return None


def _flag_problem(
    name: str, tokens: tuple[str, ...], role: str | None, spec: EndpointSpec
) -> str | None:
    """Why the flag `name` (its tokens) may not appear in extra args, or None if it may."""
    worker, roles = worker_flags(spec), role_flags(spec.prefill)
    flag = read_flag(name, (*worker, *roles, *FIXED_FLAGS, *ONE_ONLY_FLAGS))
    if flag is None:
        return None
    said = name if flag == name else f"{name} (vLLM reads it as {flag})"
    if flag == "--model":
        return None  # the settings then leave their --model out (own_model)
    if flag in ONE_ONLY_FLAGS:
        if flag_value(tokens) == "1":
            return None
        return (
            f"{said} is not allowed above 1: the GPU requests and the KV sizing assume one "
            "tensor-parallel group per pod; scale with replicas instead"
        )
    if flag in FIXED_FLAGS:
        return f"{said} is fixed, because {FIXED_FLAGS[flag]}; remove it"
    if flag in roles and (role is not None or flag not in worker):
        setting = roles[flag][1]
        where = (
            f"{role}.{setting}" if role else " and ".join(f"{r}.{setting}" for r in spec.roles())
        )
        return f"{said} is written from {where}; set that instead"
    if setting := worker[flag][1]:
        return f"{said} is written from {setting}; set that instead"
    return (
        f"{said} is fixed, because the operator mounts the model and routes to the port; remove it"
    )


def _arg_lists(spec: EndpointSpec) -> list[tuple[str, str | None, list[str]]]:
    """Each list of arguments the settings pass, the command among them: a flag in it is a
    flag vLLM reads."""
    return [("workerArgs", None, spec.worker_args), ("command", None, spec.command or [])] + [
        (f"{role}.args", role, settings.args) for role, (settings, _) in spec.roles().items()
    ]


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
    """Each item of a command line (any engine's, `worker.command` and its args included) that
    gives a credential away, with why: a credential flag with a value, an assignment to a
    credential's name (`sh -c "HF_TOKEN=..."`), or a value shaped as a known credential.
    Items are indexes into `argv`; the messages never repeat the value."""
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


def _credentials(spec: EndpointSpec) -> list[Finding]:
    """Secrets in the flags, where the manifest carries them in plain text (environment
    variables: environment.py; the L2 cache URL: kv_cache.py)."""
    return [
        error("credential-in-args", f"{field}[{i}]", problem)
        for field, _, args in _arg_lists(spec)
        for i, problem in credential_problems(args)
    ]


def _extra_args(spec: EndpointSpec) -> list[Finding]:
    found = [
        error(
            "command-line-in-one-arg",
            f"{field}[{i}]",
            f"{token!r} holds several arguments in one list item, which vLLM receives as one "
            "and refuses; give each flag and each value its own item",
        )
        for field, _, args in _arg_lists(spec)
        for i, token in enumerate(args)
        if holds_several_arguments(token)
    ]
    found += [
        error(
            "empty-arg",
            f"{field}[{i}]",
            f"{token!r} is an empty argument, which vLLM reads as a positional one: an "
            "empty model name under `vllm serve`, an unrecognized argument otherwise; drop it "
            "(an empty value goes right after its flag, or as --flag=)",
        )
        for field, _, args in _arg_lists(spec)
        for i, token in enumerate(args)
        if not token.strip() and not (i and is_option(args[i - 1]) and "=" not in args[i - 1])
    ]
    return found + [
        error("typed-flag-in-args", field, problem)
        for field, role, args in _arg_lists(spec)
        for name, tokens in split_flags(args)
        if name and (problem := _flag_problem(name, tokens, role, spec))
    ]


# vLLM's --max-num-batched-tokens when none is given is roles.vllm_default_max_num_batched_tokens
# (8,192 on all five DPD types), with chunked prefill on (its default for generative models);
# with chunked prefill off it is max_model_len. vLLM refuses max_num_seqs above it
# (vllm/config/scheduler.py `SchedulerConfig.verify_max_model_len`).
_HUMAN_INT = re.compile(r"^(\d+(?:\.\d+)?)([kmgtKMGT]?)$")
_MULTIPLIERS = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_MULTIPLIERS |= {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def _human_int(value: str | None) -> int | None:
    """vLLM's reading of a large integer flag: `8192`, `16k` (16,000), `16K` (16,384)."""
    match = _HUMAN_INT.match((value or "").strip())
    if match is None:
        return None
    number, suffix = match.groups()
    return int(float(number) * _MULTIPLIERS.get(suffix, 1))


def _batched_tokens(spec: EndpointSpec) -> list[Finding]:
    found = []
    for name, (role, max_num_seqs) in spec.roles().items():
        flags = {canonical_flag(n): t for n, t in split_flags(effective_args(spec, role)) if n}
        chunked = "--no-enable-chunked-prefill" not in flags
        given = flags.get("--max-num-batched-tokens")
        budget = _human_int(flag_value(given)) if given else None
        if budget is None:
            default = vllm_default_max_num_batched_tokens(spec.instance_type)
            budget = default if chunked else spec.max_model_len
        if budget is None:
            continue  # vLLM's budget is then the model's own length, which it also serves
        source = (
            f"--max-num-batched-tokens {budget}"
            if given
            else f"vLLM's default max_num_batched_tokens of {budget}"
            + ("" if chunked else " (maxModelLen, with chunked prefill off)")
        )
        if max_num_seqs > budget:
            found.append(
                error(
                    "seqs-above-batched-tokens",
                    f"{name}.maxNumSeqs",
                    f"{max_num_seqs} is more than {source}, and vLLM refuses max_num_seqs above "
                    f"max_num_batched_tokens; set at most {budget}, or raise "
                    "--max-num-batched-tokens in args",
                )
            )
        if given and not chunked and spec.max_model_len and budget < spec.max_model_len:
            found.append(
                error(
                    "batched-tokens-below-context",
                    f"{name}.args",
                    f"--max-num-batched-tokens {budget} is below maxModelLen "
                    f"{spec.max_model_len} with chunked prefill off, which vLLM refuses; raise "
                    "it or drop --no-enable-chunked-prefill",
                )
            )
    return found


def check_args(spec: EndpointSpec) -> list[Finding]:
    """Fields are relative to the endpoint (`prefill.args`). The flag rules are vLLM's; a
    credential is one whatever the engine."""
    if spec.engine != VLLM:
        return _credentials(spec)
    return _extra_args(spec) + _credentials(spec) + _batched_tokens(spec) + _unmounted(spec)


def _unmounted(spec: EndpointSpec) -> list[Finding]:
    model = own_model(spec)
    if model is None or model.rstrip("/") == MODEL_PATH:
        return []
    return [
        warning(
            "model-not-mounted",
            "workerArgs",
            f"--model {model} has vLLM load that model, not the weights the operator mounts "
            f"from modelSource at {MODEL_PATH}, which then go unused; drop --model to serve "
            "them",
        )
    ]
