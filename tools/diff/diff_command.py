"""`hyperpod-dpd diff`: what a change to the program or a stack file does to a stack."""

import json
import sys
import tempfile
from pathlib import Path

from infra.paths import ROOT
from tools.diff.diff_report import deltas, manifest_diffs, markdown_report, text_report
from tools.diff.endpoint_swaps import replacement_plans
from tools.diff.render_at import RenderError, checkout_at, render_checkout
from tools.diff.stack_diff import compare
from tools.render.graph import mermaid, owners

NO_CHANGES, CHANGES, ERROR = 0, 1, 2


def _resources(out: Path) -> list[dict]:
    return json.loads((out / "resources.json").read_text())


def _sizing(out: Path) -> dict | None:
    sizing = out / "sizing.json"
    return json.loads(sizing.read_text()) if sizing.is_file() else None


def run_diff(
    base: str, stack: str, config_file: Path, markdown: bool, account_id: str | None = None
) -> int:
    """`account_id`: the account both sides render as; None leaves the mocks' own."""
    config_file = config_file.resolve()
    inside = config_file.is_relative_to(ROOT)
    with tempfile.TemporaryDirectory(prefix="hyperpod-dpd-diff-") as scratch:
        head_out, base_out = Path(scratch) / "head", Path(scratch) / "base"
        try:
            # The base checked out first: a revision git cannot find costs no render.
            with checkout_at(ROOT, base) as checkout:
                render_checkout(ROOT, stack, config_file, head_out, account_id)
                # The base renders its own version of the stack file; a stack new since
                # then has nothing at the base.
                base_file = checkout / config_file.relative_to(ROOT) if inside else config_file
                if base_file.is_file():
                    render_checkout(checkout, stack, base_file, base_out, account_id)
        except RenderError as failed:
            print(f"{stack}: {failed}", file=sys.stderr)
            return ERROR
        return print_diff(stack, base, base_out if base_out.is_dir() else None, head_out, markdown)


def print_diff(stack: str, base: str, base_out: Path | None, head_out: Path, markdown: bool) -> int:
    """What changes from the render in `base_out` (None: the stack is new since `base`) to the
    one in `head_out`, printed; CHANGES or NO_CHANGES."""
    head = _resources(head_out)
    before = _resources(base_out) if base_out else []
    changes = compare(before, head)
    diffs = manifest_diffs(before, head)
    plans = replacement_plans(_sizing(head_out))
    figures = deltas(_sizing(base_out) if base_out else None, _sizing(head_out))
    if not changes and all(
        len(set(figure.split(" → "))) == 1 for row in figures.values() for figure in row
    ):
        figures = {}
    if markdown:
        owner = owners(head)
        changed = {owner[c.urn] for c in changes if c.urn in owner}
        # Drawn where the components or how they wait for each other changed.
        graph = mermaid(head, changed) if mermaid(head) != mermaid(before) else None
        print(markdown_report(stack, base, changes, diffs, graph, figures, plans), end="")
    else:
        print(text_report(stack, base, changes, diffs, plans, figures), end="")
    return CHANGES if changes else NO_CHANGES
