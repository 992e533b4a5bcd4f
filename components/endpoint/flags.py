"""How vLLM reads a command line, more loosely than its help spells the flags
(vllm/utils/argparse_utils.py `FlexibleArgumentParser.parse_args` and vllm/engine/arg_utils.py
`EngineArgs.add_cli_args`):
- in a long flag, `_` and `-` are the same up to the first `.`: `--max_model_len` is
  `--max-model-len`;
- `--flag=value` is `--flag value`, and `--json-flag.key value` sets one key of a JSON flag;
- some flags have short aliases: `-tp` for `--tensor-parallel-size`, `-pp`, `-dp`, ...;
- argparse's default `allow_abbrev` lets a unique prefix stand for a long flag
  (`--tensor-parallel 4`).
`canonical_flag` folds the first three; `read_flag` takes the prefixes of the flags asked about.
"""

import re
from collections.abc import Iterable, Sequence

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


# Large numbers as vLLM reads them (vllm/utils/argparse_utils.py): `16k` is 16,000, `16K` 16,384.
_SUFFIXES = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12}
_SUFFIXES |= {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def flag_number(text: str | None) -> int | float | str | None:
    """A flag's value as vLLM reads a number; text that is none stays text."""
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


def holds_several_arguments(token: str) -> bool:
    """Whether one argv item holds a whole command line (`"--a --b 32"`): Kubernetes passes it
    to vLLM as one argument, which vLLM cannot parse. JSON values may hold anything."""
    name, _, value = token.partition("=")
    if is_option(token) and re.search(r"\s", name):
        return True
    text = value if is_option(token) else token
    return not text.lstrip().startswith(("{", "[")) and bool(_EMBEDDED_OPTION.search(text))


def split_flags(args: Sequence[str]) -> list[Flag]:
    """(flag name, tokens) pairs, keeping every token: a flag owns the tokens up to the next
    option; tokens before the first flag are kept under the empty name."""
    flags: list[tuple[str, list[str]]] = []
    for token in args:
        if is_option(token):
            flags.append((token.split("=", 1)[0], [token]))
        elif flags:
            flags[-1][1].append(token)
        else:
            flags.append(("", [token]))
    return [(name, tuple(tokens)) for name, tokens in flags]


def flag_names(args: Sequence[str]) -> list[str]:
    return [name for name, _ in split_flags(args) if name]


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
