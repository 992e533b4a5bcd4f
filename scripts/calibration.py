"""The performance model against the measured runs of planner/calibration/runs.yaml.

    .venv/bin/python scripts/calibration.py table [--markdown]   every figure against its prediction
    .venv/bin/python scripts/calibration.py fit                  refit the factors on the fit set
    .venv/bin/python scripts/calibration.py held-apart [--markdown]  the errors by engine and GPU

Publishers are held apart whole: the factors of planner/efficiency.py are fitted on every
publisher but those of HELD_APART (and the two whose runs the model does not describe), and the
held-apart figure is the error on those publishers' runs, which no fit has seen. `fit` fits by
coordinate descent over multiples of the committed values, minimising the mean |log(predicted
/ measured)| (each capped at 4x, so no one unbounded prediction rules) over TTFT, TPOT and
throughput, and prints the multiples to apply.
"""

import argparse
import dataclasses
import math
import statistics
import sys
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from planner import efficiency
from planner.calibration_cases import (
    THROUGHPUT_METRICS,
    TPOT_METRICS,
    TTFT_METRICS,
    UNDESCRIBED_PUBLISHERS,
    Comparison,
    compare,
    load_cases,
)

# Publishers held apart from every fit, in two sets, chosen before any of their runs was held
# against the model: together they run vLLM, SGLang and TensorRT-LLM on H100, H200 and B200,
# colocated and disaggregated.
HELD_APART = {"A": ("dstack",), "B": ("datacrunch", "lambda", "nim")}
ENGINES = ("vllm", "sglang", "trtllm")
FACTORS = ("gemm", "bandwidth", "overhead", "moe", "fp8", "fp4",
           *(f"floor_{e}" for e in ENGINES), "experts_vllm", "experts_sglang")  # fmt: skip
STEPS = (0.7, 0.85, 0.95, 1.05, 1.2, 1.4)
SWEEPS = 2
LOG_ERROR_CAP = math.log(4)


@contextmanager
def scaled(multiples: dict[str, float]):
    """The model with its fitted factors scaled by `multiples`, restored afterwards."""
    engines = dict(efficiency.ENGINE_EFFICIENCY)
    precision = dict(efficiency.PRECISION_COMPUTE)
    try:
        for name, engine in engines.items():
            efficiency.ENGINE_EFFICIENCY[name] = dataclasses.replace(
                engine,
                gemm=engine.gemm * multiples["gemm"],
                decode_bandwidth=min(engine.decode_bandwidth * multiples["bandwidth"], 1.0),
                step_overhead_s=engine.step_overhead_s * multiples["overhead"],
                request_overhead_s=engine.request_overhead_s * multiples["overhead"],
                moe_gemm=min(engine.moe_gemm * multiples["moe"], 1.0),
                request_s=engine.request_s * multiples[f"floor_{name}"],
                prefill_layer_s=engine.prefill_layer_s * multiples[f"floor_{name}"],
                prefill_expert_s=engine.prefill_expert_s
                * multiples["experts_sglang" if name == "sglang" else "experts_vllm"],
            )
        for name in ("fp8", "int8", "w4a16"):
            efficiency.PRECISION_COMPUTE[name] = precision[name] * multiples["fp8"]
        efficiency.PRECISION_COMPUTE["fp4"] = precision["fp4"] * multiples["fp4"]
        yield
    finally:
        efficiency.ENGINE_EFFICIENCY.update(engines)
        efficiency.PRECISION_COMPUTE.update(precision)


def counted(found: list[Comparison], metrics: tuple[str, ...]) -> list[Comparison]:
    return [c for c in found if c.metric in metrics and not c.set_aside]


def log_error(comparison: Comparison) -> float:
    if not math.isfinite(comparison.predicted) or comparison.predicted <= 0:
        return LOG_ERROR_CAP
    return min(abs(math.log(comparison.predicted / comparison.measured)), LOG_ERROR_CAP)


def fit(cases: list[dict]) -> dict[str, float]:
    multiples = dict.fromkeys(FACTORS, 1.0)

    def loss(trial: dict[str, float]) -> float:
        with scaled(trial):
            found = compare(cases)[0]
        return statistics.fmean(
            log_error(c) for c in counted(found, TTFT_METRICS + TPOT_METRICS + THROUGHPUT_METRICS)
        )

    best = loss(multiples)
    for sweep in range(SWEEPS):
        for factor in FACTORS:
            start = multiples[factor]
            for step in STEPS:
                trial = {**multiples, factor: start * step}
                found = loss(trial)
                if found < best - 1e-4:
                    best, multiples = found, trial
        print(f"sweep {sweep + 1}: loss {best:.3f} {multiples}", file=sys.stderr)
    return multiples


def summary(found: list[Comparison]) -> tuple[str, ...]:
    """TTFT's median |error| and share beyond 2x, TPOT's and throughput's median |error|."""

    def median(metrics: tuple[str, ...]) -> str:
        errors = [abs(c.error) for c in counted(found, metrics)]
        return f"{statistics.median(errors):.0%}" if errors else "-"

    ttft = counted(found, TTFT_METRICS)
    beyond = f"{sum(c.ratio > 2 for c in ttft) / len(ttft):.0%}" if ttft else "-"
    return (median(TTFT_METRICS), beyond, str(len(ttft)), median(TPOT_METRICS),
            median(THROUGHPUT_METRICS))  # fmt: skip


def _print(rows: list[tuple[str, ...]], markdown: bool) -> None:
    if markdown:
        print("| " + " | ".join(rows[0]) + " |")
        print("|" + "---|" * len(rows[0]))
        for row in rows[1:]:
            print("| " + " | ".join(row) + " |")
        return
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())


def table(markdown: bool) -> None:
    found, refused = compare(load_cases())
    rows = [("case", "metric", "measured", "predicted", "error", "x off", "")]
    rows += [(c.case["id"], c.metric, f"{c.measured:,.1f}", f"{c.predicted:,.1f}",
              f"{c.error:+.0%}", f"{c.ratio:.2f}", c.set_aside or "") for c in found]  # fmt: skip
    _print(rows, markdown)
    for case_id, reason in refused:
        print(f"refused: {case_id}: {reason}")


def by_engine_and_gpu(markdown: bool) -> None:
    """Fitted and held-apart errors by engine and GPU, with the committed factors."""
    found, refused = compare(load_cases())
    groups: dict[tuple[str, str, str], list[Comparison]] = defaultdict(list)
    for c in found:
        publisher = c.case["publisher"]
        if publisher in UNDESCRIBED_PUBLISHERS:
            continue
        side = next((f"held apart {k}" for k, v in HELD_APART.items() if publisher in v), "fitted")
        for engine in (c.case["engine"], "all"):
            groups[(side, engine, c.case["gpu"])].append(c)
            groups[(side, engine, "all")].append(c)
    header = ("set", "engine", "GPU", "TTFT median error", "TTFT beyond 2x", "TTFT figures",
              "TPOT median error", "tok/s median error")  # fmt: skip
    rows = [header]
    for key in sorted(groups, key=lambda k: (k[0] != "fitted", k[0], k[1] == "all", k)):
        if key[1] == "all" and key[2] != "all":
            continue
        rows.append((*key, *summary(groups[key])))
    _print(rows, markdown)
    cases = {c.case["id"] for c in found}
    print(f"\n{len(cases)} runs predicted; {len(refused)} refused")
    for case_id, reason in refused:
        print(f"refused: {case_id}: {reason}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("table", "fit", "held-apart"))
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    if args.action == "fit":
        skipped = {p for publishers in HELD_APART.values() for p in publishers}
        skipped |= set(UNDESCRIBED_PUBLISHERS)
        print(fit([c for c in load_cases() if c["publisher"] not in skipped]))
    elif args.action == "table":
        table(args.markdown)
    else:
        by_engine_and_gpu(args.markdown)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
