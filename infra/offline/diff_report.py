"""A stack diff as people read it: in a terminal, or as a pull-request comment."""

from __future__ import annotations

import difflib
import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from infra.offline.stack_diff import Change

SYMBOLS = {"add": "+", "remove": "-", "update": "~", "replace": "+-"}
VALUE_WIDTH = 80


def _value(value: Any) -> str:
    text = "(none)" if value is None else value if isinstance(value, str) else json.dumps(value)
    return text if len(text) <= VALUE_WIDTH else text[: VALUE_WIDTH - 1] + "…"


def headline(stack: str, base: str, changes: Sequence[Change]) -> str:
    if not changes:
        return f"Stack {stack}: no changes from {base}."
    counts = Counter(c.kind for c in changes)
    parts = [f"{counts[k]} to {k}" for k in ("update", "replace", "add", "remove") if counts[k]]
    return f"Stack {stack}: {', '.join(parts)} (from {base})."


def manifest_diffs(base: Path | None, head: Path) -> list[str]:
    """A unified diff of every Kubernetes manifest that differs between two renders."""

    def files(out: Path | None) -> dict[str, str]:
        folder = out / "manifests" if out else None
        if folder is None or not folder.is_dir():
            return {}
        return {p.name: p.read_text() for p in sorted(folder.iterdir())}

    before, after = files(base), files(head)
    diffs = []
    for name in sorted(before.keys() | after.keys()):
        old, new = before.get(name, ""), after.get(name, "")
        if old != new:
            lines = difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                f"a/manifests/{name}" if name in before else "/dev/null",
                f"b/manifests/{name}" if name in after else "/dev/null",
            )
            diffs.append("".join(lines))
    return diffs


def _path_lines(change: Change) -> list[str]:
    return [
        f"{p.path}: {_value(p.old)} → {_value(p.new)}"
        + (f"  (replaces: {p.replaces})" if p.replaces else "")
        for p in change.paths
    ]


def text_report(stack: str, base: str, changes: Sequence[Change], diffs: Sequence[str]) -> str:
    lines = [headline(stack, base, changes)]
    for change in changes:
        lines.append(f"{SYMBOLS[change.kind]:>2} {change.kind:<8} {change.type}  {change.name}")
        lines += [f"      {line}" for line in _path_lines(change)]
    replaced = [c for c in changes if c.kind == "replace"]
    if replaced:
        lines += ["", "Replacements delete and create again: a replaced endpoint is an outage."]
    if diffs:
        lines += ["", "Kubernetes manifests:", *diffs]
    return "\n".join(lines).rstrip() + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_report(
    stack: str,
    base: str,
    changes: Sequence[Change],
    diffs: Sequence[str],
    graph: str,
    plan: Sequence[str] = (),
) -> str:
    """`plan`: the lines of the stack's cost and endpoint predictions, shown before the graph."""
    # The offline workflow puts each stack's report under its own heading in one comment.
    lines = [headline(stack, base, changes)]
    replaced = [c for c in changes if c.kind == "replace"]
    if replaced:
        names = ", ".join(f"`{c.name}`" for c in replaced)
        lines += [
            "",
            f"> [!WARNING]\n> Replaced, so deleted and created again: {names}. "
            "A replaced serving endpoint is an outage.",
        ]
    if changes:
        lines += ["", "| | Resource | Type | Changes |", "|---|---|---|---|"]
        for change in changes:
            details = "<br>".join(f"`{_cell(line)}`" for line in _path_lines(change))
            lines.append(
                f"| {SYMBOLS[change.kind]} {change.kind} | `{_cell(change.name)}` "
                f"| `{change.type.rsplit(':', 1)[1]}` | {details} |"
            )
    if diffs:
        lines += [
            "",
            "<details><summary>Kubernetes manifests</summary>",
            "",
            "```diff",
            *(d.rstrip("\n") for d in diffs),
            "```",
            "",
            "</details>",
        ]
    if plan:
        lines += ["", *plan]
    lines += ["", "Components, the changed ones highlighted:", "", "```mermaid"]
    lines += [graph.rstrip("\n"), "```"]
    return "\n".join(lines) + "\n"
