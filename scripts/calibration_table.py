"""Print the performance model's calibration table: each public measurement against the
prediction, the error of each, and the median error over TTFT and TPOT.

    .venv/bin/python scripts/calibration_table.py [--markdown]

Rows measured on GB200/GB300 racks (72 GPUs on one NVLink domain, unlike any HyperPod
instance) are marked `rack`, a burst's TTFT (the wait while 1,000 requests sent at once
drain) `burst`, and the TTFT of an open-loop run that achieved well under the rate it offered
`overloaded`; all are left out of the medians. The medians are given for every family and for
those the model describes (calibration_cases.UNDESCRIBED_FAMILIES left out).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from planner.calibration_cases import (
    LATENCY_METRICS,
    TAIL_METRICS,
    THROUGHPUT_METRICS,
    TPOT_METRICS,
    TTFT_METRICS,
    UNDESCRIBED_FAMILIES,
    Comparison,
    compare,
    family,
    load_cases,
    median_error,
)

SHORT = {
    "ttftMs": "TTFT ms",
    "p50TtftMs": "p50 TTFT ms",
    "p90TtftMs": "p90 TTFT ms",
    "p99TtftMs": "p99 TTFT ms",
    "tpotMs": "TPOT ms",
    "p50ItlMs": "p50 ITL ms",
    "p90ItlMs": "p90 ITL ms",
    "p99ItlMs": "p99 ITL ms",
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
    described = [c for c in comparisons if family(c.case_id) not in UNDESCRIBED_FAMILIES]
    print()
    for label, chosen in (
        ("every family", comparisons),
        (f"all but {', '.join(UNDESCRIBED_FAMILIES)}", described),
    ):
        figures = [c for c in chosen if c.metric in LATENCY_METRICS and not c.set_aside]
        print(
            f"{label}: median |error| over TTFT and TPOT {median_error(chosen):.0%} "
            f"({len(figures)} figures; within 2x: {sum(c.ratio <= 2 for c in figures)}); "
            f"TTFT {median_error(chosen, TTFT_METRICS):.0%}, TPOT "
            f"{median_error(chosen, TPOT_METRICS):.0%}, tails (p90, p99) "
            f"{median_error(chosen, TAIL_METRICS):.0%}, throughput "
            f"{median_error(chosen, THROUGHPUT_METRICS):.0%}"
        )
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
