"""Endpoint items appended to a stack file's `hyperpod-dpd:endpoints`, keeping every comment.

A text edit, not a rewrite: the items' lines go after the list's last item, indented as its
items are (or in place of an empty `[]`, or as a new key at the end of `config:`). The result
is read back as the Pulumi CLI reads it and must hold the endpoints it held before followed by
the new items, and nothing else changed; only then does it replace the file (user_files.py:
whole, by a rename, in its encoding and mode, through a symbolic link, one edit at a time).
"""

import re
from pathlib import Path
from typing import Any

from components.core.user_files import (
    UnreadableFileError,
    UnwritableFileError,
    decode_text,
    locked,
    read_bytes,
    replace_file,
    text_encoding,
    writable_problem,
)
from tools.import_endpoint.round_trip import ENDPOINTS_KEY, with_items
from tools.render.stack_config import MAX_STACK_FILE_BYTES, StackFileError, read_stack_config

_KEY = re.compile(rf"^(?P<indent>[ \t]*){re.escape(ENDPOINTS_KEY)}:(?P<rest>.*)$")
_CONFIG = re.compile(r"^config:\s*(#.*)?$")


class StackEditError(ValueError):
    """Why the items could not be appended."""


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _is_content(line: str) -> bool:
    stripped = line.strip()
    return bool(stripped) and not stripped.startswith("#")


def _block(text: str, indent: int) -> str:
    return "".join(" " * indent + line if line.strip() else line for line in text.splitlines(True))


def _edited(lines: list[str], items_text: str) -> list[str]:
    for at, line in enumerate(lines):
        found = _KEY.match(line.rstrip("\n"))
        if not found:
            continue
        key_indent = len(found["indent"])
        rest = found["rest"].split("#", 1)[0].strip()
        if rest == "[]":
            head = f"{found['indent']}{ENDPOINTS_KEY}:\n"
            return [*lines[:at], head, _block(items_text, key_indent + 2), *lines[at + 1 :]]
        if rest:
            raise StackEditError(
                f"{ENDPOINTS_KEY} is written on one line ({rest[:40]}); write it as a block list "
                "to append to it"
            )
        end, item_indent = at + 1, None
        for i in range(at + 1, len(lines)):
            if not _is_content(lines[i]):
                continue
            if _indent(lines[i]) <= key_indent and not lines[i].lstrip().startswith("- "):
                break
            item_indent = item_indent if item_indent is not None else _indent(lines[i])
            end = i + 1
        return [*lines[:end], _block(items_text, item_indent or key_indent + 2), *lines[end:]]
    for at, line in enumerate(lines):
        if _CONFIG.match(line.rstrip("\n")):
            end = len(lines)
            for i in range(at + 1, len(lines)):
                if _is_content(lines[i]) and _indent(lines[i]) == 0:
                    end = i
                    break
            block = f"  {ENDPOINTS_KEY}:\n" + _block(items_text, 4)
            return [*lines[:end], block, *lines[end:]]
    raise StackEditError("has no top-level `config:` mapping to add the endpoints to")


def append_items(path: Path, items: list[dict[str, Any]], items_text: str) -> None:
    """Append `items` (written as `items_text`, a YAML list at column 0) to the stack file, in
    its encoding, with its permissions, through a symbolic link, one edit at a time.
    StackEditError names the file and why not; the file is then as it was."""
    try:
        with locked(path):
            _append(path, items, items_text)
    except StackFileError as unreadable:
        raise StackEditError(str(unreadable)) from None
    except (StackEditError, UnreadableFileError, UnwritableFileError) as refused:
        raise StackEditError(f"{path}: {refused}") from None
    except OSError as failed:
        raise StackEditError(f"{path}: cannot be written ({failed.strerror or failed})") from None


def _append(path: Path, items: list[dict[str, Any]], items_text: str) -> None:
    problem = writable_problem(path)
    if problem:
        raise StackEditError(problem)
    data = read_bytes(path, MAX_STACK_FILE_BYTES)
    text = decode_text(data)
    before = read_stack_config(path, text)
    lines = text.splitlines(True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    edited = "".join(_edited(lines, items_text))
    try:
        after = read_stack_config(path, edited)
    except StackFileError as broken:
        raise StackEditError(f"the edit would not read back: {broken}") from None
    if (
        after.values != with_items(before, items, replace=False).values
        or after.secret_keys != before.secret_keys
    ):
        raise StackEditError(
            "the edit would not read back as the endpoints before followed by the new ones; "
            "append the items by hand"
        )
    replace_file(path, edited, *text_encoding(data))
