"""The render summary's "After `pulumi up`" section: the stack's `nextSteps` script, as the
stack exports it."""

from __future__ import annotations


def next_steps_lines(script: str | None) -> list[str]:
    if script is None:
        return []
    lines = ["", "After `pulumi up` (also `pulumi stack output nextSteps`):"]
    return lines + [f"  {line}" if line else "" for line in script.splitlines()]
