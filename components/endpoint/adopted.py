"""An adopted endpoint (`adopted: true`, written by `hyperpod-dpd import-endpoint`): a live
InferenceEndpointConfig the stack takes over as it runs. Its command lines and environment are
written as the live object has them, flag for flag in their order and spelling, and the stack
adds no default of its own (manifest.py), so the first `pulumi up` changes nothing its pods run.
The settings that would write a flag or a variable are read from them instead, for sizing, the
planner and the checks. Plain values only.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from components.endpoint.engines.engine import OTHER_ENGINES, VLLM
from components.endpoint.environment import PD_BUFFER_SIZE
from components.endpoint.flags import canonical_flag, flag_number, flag_value, split_flags

# Where the flags and variables leave a setting out, what runs: vLLM's own values
# (vllm/engine/arg_utils.py, EngineArgs: tensor_parallel_size 1, gpu_memory_utilization 0.9),
# the model's context, the operator's --max-num-seqs, its 8 GiB PD buffer (AWS's DPD guide).
VLLM_UNSET = {"tensorParallelSize": 1, "gpuMemoryUtilization": 0.9, "maxModelLen": None}
WORKER_FLAGS = {
    "--tensor-parallel-size": "tensorParallelSize",
    "--max-model-len": "maxModelLen",
    "--gpu-memory-utilization": "gpuMemoryUtilization",
}
ROLE_FLAGS = {"--max-num-seqs": "maxNumSeqs", "--gpu-memory-utilization": "gpuMemoryUtilization"}
DEFAULT_PD_BUFFER = 8 * 2**30


def _flags(args: Sequence[str], named: Mapping[str, str], prefix: str = "") -> dict[str, Any]:
    return {
        prefix + named[canonical_flag(name)]: flag_number(flag_value(tokens))
        for name, tokens in split_flags(args)
        if name and canonical_flag(name) in named
    }


def pod_settings(
    engine: str,
    command_line: Sequence[str],
    environment: Mapping[str, str],
    roles: Mapping[str, Sequence[str]],
    pod_gpus: int,
) -> dict[str, Any]:
    """What an adopted endpoint's pods run, as settings by their keys (`prefill.maxNumSeqs`),
    None where the engine's own default runs: vLLM's flags on `command_line` (the command,
    then worker.args) and each role's (worker.args with the role's merged over them), or
    another engine's variables; the DPD buffer from its variable."""
    if engine != VLLM:
        words = OTHER_ENGINES[engine]
        unset = 1 if pod_gpus == 1 else words.tensor_parallel_when_unset
        found = {"tensorParallelSize": pod_gpus if unset == "all-gpus" else unset}
        return found | {
            setting: flag_number(environment[name])
            for name, setting in words.variables().items()
            if name in environment and setting in WORKER_FLAGS.values()
        }
    found = VLLM_UNSET | _flags(command_line, WORKER_FLAGS)
    for role, args in roles.items():
        found |= {f"{role}.{key}": None for key in ROLE_FLAGS.values()}
        found |= _flags(args, ROLE_FLAGS, f"{role}.")
    if "serving" not in roles:
        found["pdBufferSize"] = flag_number(environment.get(PD_BUFFER_SIZE)) or DEFAULT_PD_BUFFER
    return found


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def with_pod_settings(item: dict[str, Any]) -> dict[str, Any]:
    """An adopted item (its stack file's keys) with the settings its pods' command lines and
    variables hold, where it sets none of its own: a setting it sets is held to them
    (checks.py)."""
    command_line = _strings(item.get("command")) + _strings(item.get("workerArgs"))
    names = ("serving",) if isinstance(item.get("serving"), dict) else ("prefill", "decode")
    roles = {name: item[name] if isinstance(item.get(name), dict) else {} for name in names}
    gpus = [g for r in roles.values() if isinstance(g := r.get("gpus", 8), int)]
    env = item.get("environmentVariables")
    found = pod_settings(
        str(item.get("engine", VLLM)),
        command_line,
        env if isinstance(env, dict) else {},
        {name: command_line + _strings(r.get("args")) for name, r in roles.items()},
        max(gpus, default=8),
    )
    out = {**{k: v for k, v in found.items() if "." not in k and v is not None}, **item}
    for name, role in roles.items():
        read = {k.split(".")[1]: v for k, v in found.items() if k.startswith(f"{name}.")}
        if name in item:
            out[name] = {**{k: v for k, v in read.items() if v is not None}, **role}
    return out
