"""vLLM command-line flags, and the operator's rule for merging a role's flags over the worker's.

The operator starts each DPD pod with `worker.args` merged with its role's `args`: a flag
present in both takes the role's value in place, and the role's other flags are appended.
"""

from __future__ import annotations

from collections.abc import Sequence

Flag = tuple[str, tuple[str, ...]]


def flag_name(token: str) -> str:
    return token.split("=", 1)[0]


def split_flags(args: Sequence[str]) -> list[Flag]:
    """Group an argument list into (flag name, tokens) pairs, keeping every token.

    A flag owns the tokens up to the next `--` token, so `--x 1`, `--x=1` and a bare
    boolean `--enforce-eager` all come out as one entry. Tokens before the first flag
    are kept under the empty name.
    """
    flags: list[Flag] = []
    for token in args:
        if token.startswith("--"):
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
