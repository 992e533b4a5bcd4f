"""A stack diff as people read it: in a terminal, or as a pull-request comment."""

import difflib
import json
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from components.core.terminal_text import one_line
from components.core.units import format_bytes
from components.endpoint.environment import PD_BUFFER_SIZE
from components.pricing.prices import EC2_ON_DEMAND
from tools.diff.endpoint_swaps import (
    ENDPOINT,
    Plans,
    delete_first_detail,
    is_swap,
    lost_nodes_line,
    mode_detail,
    swap_and_roll_lines,
)
from tools.diff.references import REFERENCE
from tools.diff.stack_diff import Change, matched
from tools.render import yaml_io
from tools.reports.markdown import cell, code, fenced

SYMBOLS = {"add": "+", "remove": "-", "update": "~", "replace": "+-"}
VALUE_WIDTH = 80
# What replacing each costs, worst first: the outage and how long it lasts. Times from
# DESIGN.md's sources: EKS about 15 minutes; HyperPod with p5 capacity and deep health checks
# hours; the inference operator add-on over 40 minutes on p5.
OUTAGES = {
    "aws-native:sagemaker:Cluster": (
        "HyperPod cluster {name}: deleted with all its nodes, then created again; nodes with "
        "p5 capacity and deep health checks take hours, and no endpoint answers meanwhile."
    ),
    "eks:index:Cluster": (
        "EKS cluster {name}: deleted, then created again (about 15 minutes), and everything in "
        "it after that: add-ons (the inference operator over 40 minutes), charts, endpoints."
    ),
    "pulumi:providers:kubernetes": (
        "Kubernetes provider {name}: it reaches a new cluster, so every object it manages is "
        "deleted and created again (listed below with why)."
    ),
    ENDPOINT: (
        "endpoint {name}: deleted, then created again; no answers until its pods have pulled "
        "the image and loaded the weights again."
    ),
}


def _named(text: str) -> str:
    """References to made-up IDs (references.py) by their resources' names."""
    return REFERENCE.sub(lambda m: "⟨" + re.sub(r"urn:\S*::", "", m[1]) + "⟩", text)


def headline(stack: str, base: str, changes: Sequence[Change]) -> str:
    if not changes:
        return f"Stack {stack}: no changes from {base}."
    counts = Counter(c.kind for c in changes)
    parts = [f"{counts[k]} to {k}" for k in ("update", "replace", "add", "remove") if counts[k]]
    return f"Stack {stack}: {', '.join(parts)} (from {base})."


def _manifest(resource: dict[str, Any] | None) -> str:
    """A Kubernetes object as `kubectl apply` takes it, or "" for any other resource."""
    if resource is None or not resource["type"].startswith("kubernetes:"):
        return ""
    inputs = resource["inputs"]
    if not {"apiVersion", "kind"} <= inputs.keys():
        return ""
    # Sorted, as resources.json has them: apiVersion, kind, metadata, then the rest.
    return _named(yaml_io.dump(inputs))


def manifest_diffs(base: list[dict[str, Any]], head: list[dict[str, Any]]) -> list[str]:
    """A unified diff of each changed Kubernetes object against the same resource in the base."""
    before, after = matched(base, head)
    diffs = []
    for urn in sorted(before.keys() | after.keys()):
        old, new = _manifest(before.get(urn)), _manifest(after.get(urn))
        if old != new:
            kind = urn.split("::")[2].rpartition(":")[2]
            name = f"{kind}/{(after.get(urn) or before[urn])['name']}"
            lines = difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                f"a/{name}" if old else "/dev/null",
                f"b/{name}" if new else "/dev/null",
            )
            diffs.append("".join(lines))
    return diffs


def _readable(path: str, value: Any) -> tuple[str, str]:
    """A path and value as a person reads them, the value on one line: PD_BUFFER_SIZE in
    binary units; text as it is, unless it holds what a line cannot show (a newline, an escape
    sequence), which JSON's quoting spells out; anything else as JSON. A reference to a
    resource's made-up ID reads as its name: ⟨network-private-usw2-az2⟩."""
    buffer = path.endswith(f"environmentVariables[{PD_BUFFER_SIZE}].value")
    if buffer and isinstance(value, str) and value.isdigit():
        return PD_BUFFER_SIZE, format_bytes(int(value))
    if value is None:
        text = "(none)"
    elif isinstance(value, str) and one_line(value) == value:
        text = value
    else:
        text = json.dumps(value, ensure_ascii=False)
    text = _named(text)
    return path, text if len(text) <= VALUE_WIDTH else text[: VALUE_WIDTH - 1] + "…"


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


def _forced(change: Change) -> str:
    """The input that forces a replacement, or what it goes down with."""
    forcing = next((p for p in change.paths if p.replaces), None)
    if forcing is None:
        return f" Forced: {change.because}." if change.because else ""
    path, old = _readable(forcing.path, forcing.old)
    return f" Forced by {code(f'{path}: {old} → {_readable(path, forcing.new)[1]}')}."


def outages(changes: Sequence[Change], plans: Plans | None = None) -> list[str]:
    """What the replacements cost, worst first, each with the input that forces it, then what
    updates take down. `plans`: how the head replaces each endpoint (endpoint_swaps.py); a
    swap is no outage."""
    plans = plans or {}
    replaced = [
        lost_nodes_line(c)
        if c.loses_nodes
        else outage.format(name=code(c.name))
        + _forced(c)
        + delete_first_detail(c, plans)
        + mode_detail(c, plans)
        for type_, outage in OUTAGES.items()
        for c in changes
        if c.kind == "replace" and c.type == type_ and not is_swap(c, plans)
    ]
    # A roll is no outage, unless the nodes its pods run on go first.
    rolled = [lost_nodes_line(c) for c in changes if c.kind == "update" and c.loses_nodes]
    return replaced + rolled + [outage for c in changes for outage in c.outages]


# What a reviewer weighs beside the resources, from the renders' sizing.json: each endpoint's
# prediction and the nodes' cost, before → after.
PREDICTED = (
    ("TTFT p50", "ttftMs", "ms"),
    ("TPOT", "tpotMs", "ms"),
    ("output", "outputTokensPerSecond", "tokens/s"),
    ("cost", "costPerMillionOutputTokens", "per M output tokens"),
)
NODES = "(nodes)"  # no endpoint's name: Kubernetes names have no parentheses
BOUNDS = {
    "≥": "≥: at EC2's on-demand rate for the same hardware, which HyperPod's exceeds.",
    "≤": "≤: with Karpenter's most nodes.",
}


def _figure(value: float | None, money: bool = False, bound: str = "") -> str:
    if value is None:
        return "none"
    text = f"${value:,.2f}" if money else f"{value:,.0f}" if value >= 100 else f"{value:.3g}"
    return f"{bound} {text}" if bound else text


def _predicted(prediction: dict[str, Any], key: str) -> float | None:
    """A figure of either revision's sizing.json: TTFT's median and TPOT's mean, nested by
    statistic today (`ttftMs.p50`), flat before (`p50TtftMs`, `tpotMs`)."""
    value = prediction.get(key)
    if key == "ttftMs":
        return value["p50"] if isinstance(value, dict) else prediction.get("p50TtftMs")
    return value["mean"] if isinstance(value, dict) else value


def _figures(sizing: dict[str, Any] | None) -> dict[str, list[str]]:
    """Each predicted endpoint's figures, and the nodes' cost an hour under NODES."""
    found = {}
    for endpoint in (sizing or {}).get("endpoints", []):
        p = endpoint.get("prediction")
        if p:
            bound = "≥" if p.get("priceBasis") == EC2_ON_DEMAND else ""
            found[endpoint["name"]] = [
                _figure(_predicted(p, key), *((True, bound) if key.startswith("cost") else ()))
                for _, key, _ in PREDICTED
            ]
    cost = (sizing or {}).get("cost")
    if cost and cost["groups"]:
        bound = "≤" if cost.get("hourlyAtMost") else "≥" if cost["hourlyAtLeast"] else ""
        found[NODES] = [_figure(cost["hourly"], True, bound)]
    return found


def deltas(base: dict[str, Any] | None, head: dict[str, Any] | None) -> dict[str, list[str]]:
    """Each endpoint's figures and the nodes' cost (NODES) `before → after`, or the head's."""
    old, new = _figures(base), _figures(head)
    return {
        name: [f"{a} → {b}" for a, b in zip(old[name], figures, strict=True)]
        if name in old
        else figures
        for name, figures in new.items()
    }


def _delta_lines(rows: dict[str, list[str]], markdown: bool) -> list[str]:
    endpoints = {name: figures for name, figures in rows.items() if name != NODES}
    if endpoints and markdown:
        heads = " | ".join(f"{label} {unit}" for label, _, unit in PREDICTED)
        lines = [f"| Predicted | {heads} |", "|---|---|---|---|---|"]
        lines += [f"| {code(name)} | {' | '.join(f)} |" for name, f in endpoints.items()]
        lines += [""]
    else:
        lines = [
            f"Predicted {name}: "
            + ", ".join(
                f"{label} {v} {unit}" for (label, _, unit), v in zip(PREDICTED, f, strict=True)
            )
            for name, f in endpoints.items()
        ]
    if NODES in rows:
        lines.append(f"Nodes an hour: {rows[NODES][0]}.")
    return lines + [note for bound, note in BOUNDS.items() if any(bound in x for x in lines)]


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
    figures: dict[str, list[str]] | None = None,
) -> str:
    """`figures`: each endpoint's prediction and the nodes' cost, before → after (`deltas`)."""
    lines = [headline(stack, base, changes)]
    costs = outages(changes, plans)
    if costs:
        lines += ["", "Outages:", *(f"  - {cost}" for cost in costs)]
    swaps = swap_and_roll_lines(changes, plans or {})
    if swaps:
        lines += ["", "Swaps and rolls (no outage):", *(f"  - {swap}" for swap in swaps)]
    if costs or swaps:
        lines.append("")
    for change in _ordered(changes):
        lines.append(f"{SYMBOLS[change.kind]:>2} {change.kind:<8} {change.type}  {change.name}")
        lines += [f"      {line}" for line in _path_lines(change)]
    if costs:
        lines += ["", "A replacement deletes and creates again unless it is a swap above."]
    if figures:
        lines += ["", *_delta_lines(figures, markdown=False)]
    if diffs:
        lines += ["", "Kubernetes manifests:", *diffs]
    return "\n".join(lines).rstrip() + "\n"


def markdown_report(
    stack: str,
    base: str,
    changes: Sequence[Change],
    diffs: Sequence[str],
    graph: str | None,
    figures: dict[str, list[str]] | None = None,
    plans: Plans | None = None,
) -> str:
    """`graph`: the components, the changed ones highlighted, where the components changed.
    `figures`: as in `text_report`. `plans`: how the head replaces each endpoint."""
    plans = plans or {}
    # The offline workflow puts each stack's report under its own heading in one comment.
    # The revision is whatever the caller named (a branch may be called `<b>@x`).
    lines = [headline(code(stack), code(base), changes)]
    costs = outages(changes, plans)
    if costs:
        lines += ["", "> [!WARNING]\n> Outages:", *(f"> - {cost}" for cost in costs)]
    swaps = swap_and_roll_lines(changes, plans)
    if swaps:
        lines += [
            "",
            "> [!NOTE]\n> Swaps and rolls (no outage):",
            *(f"> - {swap}" for swap in swaps),
        ]
    if changes:
        lines += ["", "| | Resource | Type | Changes |", "|---|---|---|---|"]
        for change in _ordered(changes):
            details = "<br>".join(cell(line) for line in _path_lines(change))
            lines.append(
                f"| {SYMBOLS[change.kind]} {change.kind} | {cell(change.name)} "
                f"| {cell(change.type.rsplit(':', 1)[1])} | {details} |"
            )
    if figures:
        lines += ["", *_delta_lines(figures, markdown=True)]
    if diffs:
        lines += [
            "",
            "<details><summary>Kubernetes manifests</summary>",
            "",
            *fenced("diff", "\n".join(d.rstrip("\n") for d in diffs)),
            "",
            "</details>",
        ]
    if graph:
        lines += ["", "Components, the changed ones highlighted:", "", *fenced("mermaid", graph)]
    return "\n".join(lines) + "\n"
