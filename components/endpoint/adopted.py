"""An adopted endpoint (`adopted: true`, written by `python -m infra import-endpoint`): a live
InferenceEndpointConfig the stack takes over as it runs. Its command lines and environment are
written as the live object has them, flag for flag in their order and spelling, and the stack
adds no default of its own (manifest.py), so the first `pulumi up` changes nothing its pods run.
The settings that would write a flag or a variable are read from them instead, for sizing, the
planner and the checks. Plain values only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from components.endpoint.engines.engine import OTHER_ENGINES, VLLM
from components.endpoint.environment import PD_BUFFER_SIZE
from components.endpoint.flags import canonical_flag, flag_value, split_flags

# vLLM's own values when a command line leaves the flag out (vllm/engine/arg_utils.py,
# EngineArgs: tensor_parallel_size 1, gpu_memory_utilization 0.9).
VLLM_UNSET = {"tensorParallelSize": 1, "gpuMemoryUtilization": 0.9}
WORKER_FLAGS = {
    "--tensor-parallel-size": "tensorParallelSize",
    "--max-model-len": "maxModelLen",
    "--gpu-memory-utilization": "gpuMemoryUtilization",
}
ROLE_FLAGS = {"--max-num-seqs": "maxNumSeqs", "--gpu-memory-utilization": "gpuMemoryUtilization"}
# PD_BUFFER_SIZE when the variable is unset (AWS's DPD guide: 8 GiB).
DEFAULT_PD_BUFFER = 8 * 2**30
_SUFFIXES = {"k": 10**3, "m": 10**6, "g": 10**9, "K": 2**10, "M": 2**20, "G": 2**30}


def number(text: str | None) -> int | float | str | None:
    """A flag's or variable's value as vLLM reads a number (`16k` is 16,000, `16K` 16,384);
    text that is none stays text, for the setting to refuse by its name."""
    if text is None:
        return None
    digits, scale = (text[:-1], _SUFFIXES[text[-1]]) if text[-1:] in _SUFFIXES else (text, 1)
    for kind in (int, float):
        try:
            value = kind(digits) * scale
        except ValueError:
            continue
        return int(value) if scale > 1 else value
    return text


def _flags(args: Sequence[str], named: Mapping[str, str]) -> dict[str, Any]:
    found = {}
    for name, tokens in split_flags(args):
        if name and (setting := named.get(canonical_flag(name))):
            found[setting] = number(flag_value(tokens))
    return found


def pod_settings(
    engine: str,
    command_line: Sequence[str],
    environment: Mapping[str, str],
    roles: Mapping[str, Sequence[str]],
    pod_gpus: int,
) -> dict[str, Any]:
    """What an adopted endpoint's pods run, as settings (dotted keys, `prefill.maxNumSeqs`):
    vLLM's flags on `command_line` (the command, then worker.args) and on each role's `args`
    (merged over them by the operator), or another engine's variables; the DPD buffer from
    its variable."""
    found: dict[str, Any] = {}
    if PD_BUFFER_SIZE in environment:
        found["pdBufferSize"] = number(environment[PD_BUFFER_SIZE])
    if engine != VLLM:
        words = OTHER_ENGINES[engine]
        unset = 1 if pod_gpus == 1 else words.tensor_parallel_when_unset
        found["tensorParallelSize"] = pod_gpus if unset == "all-gpus" else unset
        for name, setting in words.variables().items():
            if name in environment and setting in WORKER_FLAGS.values():
                found[setting] = number(environment[name])
        return {key: value for key, value in found.items() if value is not None}
    found |= VLLM_UNSET | _flags(command_line, WORKER_FLAGS)
    for role, args in roles.items():
        found |= {f"{role}.{key}": value for key, value in _flags(args, ROLE_FLAGS).items()}
    return found


def _strings(value: Any) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def item_pod_settings(item: Mapping[str, Any]) -> dict[str, Any]:
    """`pod_settings` of an endpoint item as the stack file writes it (camelCase keys)."""
    command_line = _strings(item.get("command")) + _strings(item.get("workerArgs"))
    roles = ("serving",) if isinstance(item.get("serving"), dict) else ("prefill", "decode")
    role_items = {
        role: item.get(role) if isinstance(item.get(role), dict) else {} for role in roles
    }
    gpus = [r.get("gpus", 8) for r in role_items.values()]
    env = item.get("environmentVariables")
    return pod_settings(
        str(item.get("engine", VLLM)),
        command_line,
        env if isinstance(env, dict) else {},
        {role: command_line + _strings(r.get("args")) for role, r in role_items.items()},
        max((g for g in gpus if isinstance(g, int)), default=8),
    )


def with_pod_settings(item: dict[str, Any]) -> dict[str, Any]:
    """The item with the settings its pods' command lines and variables hold, where it sets
    none of its own (a setting it does set is held to them: check_adopted)."""
    out = dict(item)
    for key, value in item_pod_settings(item).items():
        *parents, last = key.split(".")
        place = out
        for parent in parents:
            if not isinstance(place.get(parent), dict):
                break
            place[parent] = place = dict(place[parent])
        else:
            place.setdefault(last, value)
    return out
