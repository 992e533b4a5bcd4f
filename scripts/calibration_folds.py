"""Leave-one-family-out validation of the performance model's fitted factors.

    .venv/bin/python scripts/calibration_folds.py [--fit] [--markdown]

The model's few fitted factors (efficiency.py: GEMM efficiency, decode bandwidth, per-step and
per-request overheads, the MoE and precision factors) are refitted on every source family of
calibration/cases.yaml but one, by coordinate descent over multiples of their committed
values, minimising the mean |log(predicted / measured)| (each capped at 4x, so that no one
unbounded prediction rules) over TTFT, TPOT and throughput; the
held-out family is then predicted with those factors. Each family is printed with its median
error on TTFT and TPOT apart, held out and in the full fit, so a family the factors were tuned
on can't pass for a check. `--fit` fits on every family (the table's committed values) and
prints the multiples.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
import sys
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from planner import efficiency
from planner.calibration_cases import (
    THROUGHPUT_METRICS,
    TPOT_METRICS,
    TTFT_METRICS,
    UNDESCRIBED_FAMILIES,
    Comparison,
    compare_case,
    counted,
    family,
    load_cases,
)
from planner.scenario import ScenarioError

NEVER_FITTED = UNDESCRIBED_FAMILIES
FACTORS = ("gemm", "bandwidth", "overhead", "moe", "trtllm_moe", "fp8", "fp4")
STEPS = (0.8, 0.9, 0.95, 1.0, 1.05, 1.1, 1.25)
SWEEPS = 3


@contextmanager
def scaled(multiples: dict[str, float]):
    """The model with its fitted factors scaled by `multiples`, restored afterwards."""
    engines = dict(efficiency.ENGINE_EFFICIENCY)
    precision = dict(efficiency.PRECISION_COMPUTE)
    try:
        for name, engine in engines.items():
            moe = multiples["trtllm_moe" if name == "trtllm" else "moe"]
            efficiency.ENGINE_EFFICIENCY[name] = dataclasses.replace(
                engine,
                gemm=engine.gemm * multiples["gemm"],
                decode_bandwidth=min(engine.decode_bandwidth * multiples["bandwidth"], 1.0),
                step_overhead_s=engine.step_overhead_s * multiples["overhead"],
                request_overhead_s=engine.request_overhead_s * multiples["overhead"],
                moe_gemm=min(engine.moe_gemm * moe, 1.0),
            )
        for name in ("fp8", "int8"):
            efficiency.PRECISION_COMPUTE[name] = precision[name] * multiples["fp8"]
        efficiency.PRECISION_COMPUTE["fp4"] = precision["fp4"] * multiples["fp4"]
        yield
    finally:
        efficiency.ENGINE_EFFICIENCY.update(engines)
        efficiency.PRECISION_COMPUTE.update(precision)


def comparisons(cases: list[dict]) -> list[Comparison]:
    found = []
    for case in cases:
        try:
            found += compare_case(case)
        except ScenarioError:
            continue
    return found


LOG_ERROR_CAP = math.log(4)


def log_error(comparison: Comparison) -> float:
    if not math.isfinite(comparison.predicted) or comparison.predicted <= 0:
        return LOG_ERROR_CAP
    return min(abs(math.log(comparison.predicted / comparison.measured)), LOG_ERROR_CAP)


def loss(cases: list[dict], multiples: dict[str, float]) -> float:
    with scaled(multiples):
        found = counted(comparisons(cases), TTFT_METRICS + TPOT_METRICS + THROUGHPUT_METRICS)
    return statistics.fmean(log_error(c) for c in found)


def fit(cases: list[dict], report: Callable[[str], None] = lambda _: None) -> dict[str, float]:
    multiples = dict.fromkeys(FACTORS, 1.0)
    best = loss(cases, multiples)
    for sweep in range(SWEEPS):
        for factor in FACTORS:
            start = multiples[factor]
            for step in STEPS:
                trial = {**multiples, factor: start * step}
                found = loss(cases, trial)
                if found < best - 1e-4:
                    best, multiples = found, trial
        report(f"  sweep {sweep + 1}: loss {best:.3f} {multiples}")
    return multiples


def _median(errors: list[float]) -> str:
    return f"{statistics.median(errors):.0%}" if errors else "-"


def summary(found: list[Comparison]) -> tuple[str, str, str, int, int]:
    """Median |error| of TTFT, TPOT and throughput, and latency figures within 2x of all."""
    ttft = [abs(c.error) for c in counted(found, TTFT_METRICS)]
    tpot = [abs(c.error) for c in counted(found, TPOT_METRICS)]
    throughput = [abs(c.error) for c in counted(found, THROUGHPUT_METRICS)]
    latency = counted(found, TTFT_METRICS + TPOT_METRICS)
    within = sum(c.ratio <= 2 for c in latency)
    return _median(ttft), _median(tpot), _median(throughput), within, len(latency)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fit", action="store_true", help="fit on every family and stop")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    cases = load_cases()
    fitted = [c for c in cases if family(c["id"]) not in NEVER_FITTED]
    if args.fit:
        print(fit(fitted, print))
        return 0
    families = sorted({family(c["id"]) for c in cases})
    in_sample = comparisons(cases)
    rows = []
    held_out_all: list[Comparison] = []
    for name in families:
        train = [c for c in fitted if family(c["id"]) != name]
        test = [c for c in cases if family(c["id"]) == name]
        multiples = fit(train)
        with scaled(multiples):
            held_out = comparisons(test)
        held_out_all += held_out
        inside = [c for c in in_sample if family(c.case_id) == name]
        held, committed = summary(held_out), summary(inside)
        rows.append((name, str(len(test)), *held[:3], f"{held[3]}/{held[4]}", *committed[:3]))
        print(f"{name}: {multiples}", file=sys.stderr)
    header = ("family", "cases", "TTFT held out", "TPOT held out", "tok/s held out",
              "within 2x", "TTFT committed", "TPOT committed", "tok/s committed")  # fmt: skip
    lines = [header, *rows]
    described = [c for c in cases if family(c["id"]) not in NEVER_FITTED]
    for label, chosen in (("all", cases), ("all but " + ", ".join(NEVER_FITTED), described)):
        ids = {c["id"] for c in chosen}
        held = summary([c for c in held_out_all if c.case_id in ids])
        committed = summary([c for c in in_sample if c.case_id in ids])
        lines.append((label, str(len(chosen)), *held[:3], f"{held[3]}/{held[4]}", *committed[:3]))
    if args.markdown:
        print("| " + " | ".join(lines[0]) + " |")
        print("|" + "---|" * len(lines[0]))
        for line in lines[1:]:
            print("| " + " | ".join(line) + " |")
    else:
        widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
        for line in lines:
            print("  ".join(cell.ljust(w) for cell, w in zip(line, widths, strict=True)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
