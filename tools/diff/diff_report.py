"""A stack diff as people read it: in a terminal, or as a pull-request comment."""

from __future__ import annotations

import difflib
import json
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from components.core.terminal_text import one_line
from components.core.units import format_bytes
from components.endpoint.environment import PD_BUFFER_SIZE
from tools.diff.endpoint_swaps import (
    ENDPOINT,
    Plans,
    delete_first_detail,
    is_swap,
    lost_nodes_line,
    mode_detail,
    swap_lines,
)
from tools.diff.references import REFERENCE
from tools.diff.stack_diff import Change
from tools.reports.markdown import cell, code, fenced

SYMBOLS = {"add": "+", "remove": "-", "update": "~", "replace": "+-"}
VALUE_WIDTH = 80
# What replacing each costs, worst first: the outage and how long it lasts. Times from
# DESIGN.md's sources: EKS about 15 minutes; HyperPod with p5 capacity and deep health checks
# hours; the inference operator add-on over 40 minutes on p5.
OUTAGES = {
    "aws-native:sagemaker:Cluster": (
        "HyperPod cluster {name}: deleted with all its nodes, then created again; nodes with "
        "p5 capacity and deep health checks take hours, and no endpoint answers meanwhile"
    ),
    "eks:index:Cluster": (
        "EKS cluster {name}: deleted, then created again (about 15 minutes), and everything in "
        "it after that: add-ons (the inference operator over 40 minutes), charts, endpoints"
    ),
    "pulumi:providers:kubernetes": (
        "Kubernetes provider {name}: it reaches a new cluster, so every object it manages is "
        "deleted and created again (listed below with why)"
    ),
    ENDPOINT: (
        "endpoint {name}: deleted, then created again; no answers until its pods have pulled "
        "the image and loaded the weights again."
    ),
}


def _value(value: Any) -> str:
    """A value on one line: text as it is, unless it holds what a line cannot show (a newline,
    an escape sequence), which JSON's quoting spells out; anything else as JSON. A reference to
    a resource's made-up ID reads as its name: ⟨network-private-usw2-az2⟩."""
    if value is None:
        text = "(none)"
    elif isinstance(value, str) and one_line(value) == value:
        text = value
    else:
        text = json.dumps(value, ensure_ascii=False)
    text = REFERENCE.sub(lambda m: "⟨" + re.sub(r"urn:\S*::", "", m[1]) + "⟩", text)
    return text if len(text) <= VALUE_WIDTH else text[: VALUE_WIDTH - 1] + "…"


def headline(stack: str, base: str, changes: Sequence[Change]) -> str:
    if not changes:
        return f"Stack {stack}: no changes from {base}."
    counts = Counter(c.kind for c in changes)
    parts = [f"{counts[k]} to {k}" for k in ("update", "replace", "add", "remove") if counts[k]]
    return f"Stack {stack}: {', '.join(parts)} (from {base})."


def _markdown_headline(stack: str, base: str, changes: Sequence[Change]) -> str:
    # The revision is whatever the caller named (a branch may be called `<b>@x`).
    return headline(code(stack), code(base), changes)


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


def _readable(path: str, value: Any) -> tuple[str, str]:
    """A path and value as a person reads them: PD_BUFFER_SIZE in binary units."""
    buffer = path.endswith(f"environmentVariables[{PD_BUFFER_SIZE}].value")
    if buffer and isinstance(value, str) and value.isdigit():
        return PD_BUFFER_SIZE, format_bytes(int(value))
    return path, _value(value)


def _path_lines(change: Change) -> list[str]:
    lines = [f"replaced because {change.because}"] if change.because else []
    for p in change.paths:
        path, old = _readable(p.path, p.old)
        _, new = _readable(p.path, p.new)
        why = f"  (replaces: {p.replaces})" if p.replaces else ""
        if p.ignored:
            why = "  (ignored: ignoreChanges keeps the deployed value)"
        # A key of a mapping (a tag's, an override's) is the user's too.
        lines.append(one_line(f"{path}: {old} → {new}{why}"))
    return lines + ([change.note] if change.note else [])


def outages(changes: Sequence[Change], plans: Plans | None = None) -> list[str]:
    """What the replacements cost, worst first, then what updates take down. `plans`: how the
    head replaces each endpoint (endpoint_swaps.py); a swap is no outage."""
    plans = plans or {}
    replaced = [
        lost_nodes_line(c)
        if c.loses_nodes
        else outage.format(name=code(c.name)) + delete_first_detail(c, plans) + mode_detail(c)
        for type_, outage in OUTAGES.items()
        for c in changes
        if c.kind == "replace" and c.type == type_ and not is_swap(c, plans)
    ]
    return replaced + [outage for c in changes for outage in c.outages]


def _ordered(changes: Sequence[Change]) -> list[Change]:
    """Replacements first, the costliest at the top; then removals, updates, additions."""
    costs = list(OUTAGES)
    kinds = ("replace", "remove", "update", "add")
    return sorted(
        changes,
        key=lambda c: (
            kinds.index(c.kind),
            costs.index(c.type) if c.type in costs else len(costs),
        ),
    )


def text_report(
    stack: str,
    base: str,
    changes: Sequence[Change],
    diffs: Sequence[str],
    plans: Plans | None = None,
) -> str:
    lines = [headline(stack, base, changes)]
    costs = outages(changes, plans)
    if costs:
        lines += ["", "Outages:", *(f"  - {cost}" for cost in costs)]
    swaps = swap_lines(changes, plans or {})
    if swaps:
        lines += ["", "Swaps (replaced with no outage):", *(f"  - {swap}" for swap in swaps)]
    if costs or swaps:
        lines.append("")
    for change in _ordered(changes):
        lines.append(f"{SYMBOLS[change.kind]:>2} {change.kind:<8} {change.type}  {change.name}")
        lines += [f"      {line}" for line in _path_lines(change)]
    if costs:
        lines += ["", "A replacement deletes and creates again unless it is a swap above."]
    if diffs:
        lines += ["", "Kubernetes manifests:", *diffs]
    return "\n".join(lines).rstrip() + "\n"


def markdown_report(
    stack: str,
    base: str,
    changes: Sequence[Change],
    diffs: Sequence[str],
    graph: str,
    plan: Sequence[str] = (),
    plans: Plans | None = None,
) -> str:
    """`plan`: the lines of the stack's cost and endpoint predictions, shown before the graph.
    `plans`: how the head replaces each endpoint."""
    plans = plans or {}
    # The offline workflow puts each stack's report under its own heading in one comment.
    lines = [_markdown_headline(stack, base, changes)]
    costs = outages(changes, plans)
    if costs:
        lines += ["", "> [!WARNING]\n> Outages:", *(f"> - {cost}" for cost in costs)]
    swaps = swap_lines(changes, plans)
    if swaps:
        lines += ["", "> [!NOTE]\n> Replaced with no outage:", *(f"> - {swap}" for swap in swaps)]
    if changes:
        lines += ["", "| | Resource | Type | Changes |", "|---|---|---|---|"]
        for change in _ordered(changes):
            details = "<br>".join(cell(line) for line in _path_lines(change))
            lines.append(
                f"| {SYMBOLS[change.kind]} {change.kind} | {cell(change.name)} "
                f"| {cell(change.type.rsplit(':', 1)[1])} | {details} |"
            )
    if diffs:
        lines += [
            "",
            "<details><summary>Kubernetes manifests</summary>",
            "",
            *fenced("diff", "\n".join(d.rstrip("\n") for d in diffs)),
            "",
            "</details>",
        ]
    if plan:
        lines += ["", *plan]
    lines += ["", "Components, the changed ones highlighted:", "", *fenced("mermaid", graph)]
    return "\n".join(lines) + "\n"
