"""The vLLM command line each role's pods run: the flags the settings write, then the extra
args. The operator merges `worker.args` with each DPD role's `args`: a flag in both takes the
role's value in place, and the role's others are appended."""

from collections.abc import Sequence

from components.core.findings import Finding, error, warning
from components.endpoint.arg_credentials import check_arg_credentials
from components.endpoint.engines.engine import VLLM
from components.endpoint.flags import (
    canonical_flag,
    flag_number,
    flag_value,
    holds_several_arguments,
    is_option,
    read_flag,
    split_flags,
)
from components.endpoint.roles import RoleSpec, vllm_default_max_num_batched_tokens
from components.endpoint.spec import EndpointSpec


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
        "--port": (str(spec.container_port), "modelInvocationPort.containerPort"),
        "--tensor-parallel-size": (str(spec.tensor_parallel_size), "tensorParallelSize"),
        "--max-model-len": (
            None if spec.max_model_len is None else str(spec.max_model_len),
            "maxModelLen",
        ),
        # A colocated pod runs vLLM's own memory share unless the endpoint sets one.
        "--gpu-memory-utilization": (
            None
            if spec.aggregated and "gpu_memory_utilization" not in spec.model_fields_set
            else str(spec.gpu_memory_utilization),
            "gpuMemoryUtilization",
        ),
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


def served_model(spec: EndpointSpec) -> str:
    """The model name requests carry: vLLM's first --served-model-name, else the model it
    loads (--model, or `vllm serve`'s positional argument); the mounted weights' folder for
    the other engines, which serve whatever they loaded under any name."""
    if spec.engine != VLLM:
        return MODEL_PATH
    args = effective_args(spec, spec.decoder)
    flags = {canonical_flag(name): flag_value(tokens) for name, tokens in split_flags(args) if name}
    positional = args[0] if args and not is_option(args[0]) else None
    return flags.get("--served-model-name") or flags.get("--model") or positional or MODEL_PATH


def worker_args(spec: EndpointSpec) -> list[str]:
    if spec.adopted:
        return spec.worker_args  # as the live object has them (adopted.py)
    flags = worker_flags(spec).items()
    written = [token for flag, (value, _) in flags if value is not None for token in (flag, value)]
    if spec.command:
        # `python3` then `-m vllm.entrypoints.openai.api_server`: the module comes first, and
        # the settings' flags after it, where the server's parser reads them.
        return spec.worker_args + written
    return written + spec.worker_args


def role_args(spec: EndpointSpec, role: RoleSpec) -> list[str]:
    if spec.adopted:
        return role.args
    flags = role_flags(role).items()
    written = [t for flag, (value, _) in flags if value is not None for t in (flag, str(value))]
    return written + role.args


def effective_args(spec: EndpointSpec, role: RoleSpec) -> list[str]:
    return merge_role_args(worker_args(spec), role_args(spec, role))


# Flags no setting writes but that break what the settings describe: the operator wires each
# role's KV transfer, and the GPU requests and KV sizing assume one tensor-parallel group per pod.
FIXED_FLAGS = {
    "--kv-transfer-config": "the operator configures each role's KV transfer for DPD",
}
ONE_ONLY_FLAGS = (
    "--pipeline-parallel-size",
    "--data-parallel-size",
    "--decode-context-parallel-size",
)


def _flag_problem(
    name: str, tokens: tuple[str, ...], role: str | None, spec: EndpointSpec, worker: dict
) -> str | None:
    roles = role_flags(spec.prefill)
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


def arg_lists(spec: EndpointSpec) -> list[tuple[str, str | None, list[str]]]:
    return [("workerArgs", None, spec.worker_args), ("command", None, spec.command or [])] + [
        (f"{role}.args", role, settings.args) for role, (settings, _) in spec.roles().items()
    ]


def _extra_args(spec: EndpointSpec) -> list[Finding]:
    found = [
        error(
            "command-line-in-one-arg",
            f"{field}[{i}]",
            f"{token!r} holds several arguments in one list item, which vLLM receives as one "
            "and refuses; give each flag and each value its own item",
        )
        for field, _, args in arg_lists(spec)
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
        for field, _, args in arg_lists(spec)
        for i, token in enumerate(args)
        if not token.strip() and not (i and is_option(args[i - 1]) and "=" not in args[i - 1])
    ]
    # An adopted endpoint's settings write no flag: they are read from these (adopted.py).
    worker = worker_flags(spec)
    return found + [
        error("typed-flag-in-args", field, problem)
        for field, role, args in arg_lists(spec)
        for name, tokens in split_flags(args)
        if name
        and not spec.adopted
        and (problem := _flag_problem(name, tokens, role, spec, worker))
    ]


# vLLM's default --max-num-batched-tokens is roles.vllm_default_max_num_batched_tokens with
# chunked prefill on, max_model_len with it off; vLLM refuses max_num_seqs above it
# (vllm/config/scheduler.py `SchedulerConfig.verify_max_model_len`).
def _batched_tokens(spec: EndpointSpec) -> list[Finding]:
    found = []
    for name, (role, max_num_seqs) in spec.roles().items():
        flags = {canonical_flag(n): t for n, t in split_flags(effective_args(spec, role)) if n}
        chunked = "--no-enable-chunked-prefill" not in flags
        given = flags.get("--max-num-batched-tokens")
        budget = flag_number(flag_value(given)) if given else None
        budget = budget if isinstance(budget, int) else None
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
    credentials = check_arg_credentials(arg_lists(spec))
    if spec.engine != VLLM:
        return credentials
    return _extra_args(spec) + credentials + _batched_tokens(spec) + _unmounted(spec)


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
