"""Print the performance model's calibration table: each public measurement against the
prediction, the error of each, and the median error over TTFT and TPOT.

    .venv/bin/python scripts/calibration_table.py [--markdown]

Rows measured on GB200/GB300 racks (72 GPUs on one NVLink domain, unlike any HyperPod
instance) are marked `rack`, and a burst's TTFT (the wait while 1,000 requests sent at once
drain) `burst`; both are left out of the medians.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from components.performance.calibration_cases import (
    LATENCY_METRICS,
    THROUGHPUT_METRICS,
    Comparison,
    compare,
    load_cases,
    median_error,
)

SHORT = {
    "ttftMs": "TTFT ms",
    "tpotMs": "TPOT ms",
    "outputTokensPerSecond": "output tok/s",
    "inputTokensPerSecond": "input tok/s",
}
HEADER = ("case", "metric", "measured", "predicted", "error", "x off", "")


def _row(comparison: Comparison) -> tuple[str, ...]:
    return (
        comparison.case_id,
        SHORT[comparison.metric],
        f"{comparison.measured:,.1f}",
        f"{comparison.predicted:,.1f}",
        f"{comparison.error:+.0%}",
        f"{comparison.ratio:.2f}",
        comparison.set_aside or "",
    )


def _table(rows: list[tuple[str, ...]], markdown: bool) -> list[str]:
    if markdown:
        return [
            "| " + " | ".join(HEADER) + " |",
            "|" + "---|" * len(HEADER),
            *("| " + " | ".join(row) + " |" for row in rows),
        ]
    widths = [max(len(row[i]) for row in [HEADER, *rows]) for i in range(len(HEADER))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [HEADER, *rows]
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    comparisons, refused = compare(load_cases())
    print("\n".join(_table([_row(c) for c in comparisons], args.markdown)))
    latency = [c for c in comparisons if c.metric in LATENCY_METRICS and not c.set_aside]
    print()
    print(
        f"median |error| over TTFT and TPOT: {median_error(comparisons):.0%} "
        f"({len(latency)} figures; within 2x: {sum(c.ratio <= 2 for c in latency)})"
    )
    print(f"median |error| over throughput: {median_error(comparisons, THROUGHPUT_METRICS):.0%}")
    # The factors were set on the whole table; alternate cases show whether any half of it
    # leans on them more than the other.
    case_ids = list(dict.fromkeys(c.case_id for c in comparisons))
    halves = [
        median_error([c for c in comparisons if case_ids.index(c.case_id) % 2 == half])
        for half in (0, 1)
    ]
    print(f"median |error| over TTFT and TPOT, alternate cases: {halves[0]:.0%} / {halves[1]:.0%}")
    if latency:
        worst = max(latency, key=lambda c: c.ratio)
        print(f"worst TTFT/TPOT: {worst.case_id} {SHORT[worst.metric]}, {worst.ratio:.2f}x off")
    for case_id, reason in refused:
        print(f"refused: {case_id}: {reason}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
