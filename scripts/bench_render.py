"""How long the offline render takes, next to importing the Pulumi SDK modules it uses.

Most of a render is Python importing the Pulumi SDKs (pulumi_aws alone is hundreds of
modules). What the program adds on top of that import is what this measures, and whether it
grows with the number of endpoints or with their size.

Every measurement runs in a fresh interpreter, because a module imports once per process:
- "import": imports the SDK modules the render loads (found by a first render of the largest
  stack), nothing else;
- "render": `hyperpod-dpd render` in-process, imports included, on a generated stack of N
  copies of the dev stack's endpoint (a plain one, or a large one with many variables, flags,
  init containers and an override), with enough GPU nodes for the checks to pass.
- "floor": the same import, then the SDK alone registering the resources a first render of
  the stack recorded (scripts/sdk_floor.py): the least any program that registers those
  resources through the SDK can take.
All three time from their first line to their end, so interpreter start-up counts in none.
They run alternately, import, render, floor, for each stack in turn and each repeat, so that
load from other processes on the machine falls on all alike. Three tables sum the repeats up:
wall-clock and CPU medians, and the fastest CPU times (a shared machine only ever adds time,
so the fastest run is the least disturbed). Each gives the ratio render / import, the ratio
floor / import (over the floor run's own import, timed in the same process, which the machine's
drift between processes cannot skew), and what one more endpoint costs.

Usage: .venv/bin/python scripts/bench_render.py [--repeats 5] [--counts 1 8 64]
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tools.render.collector import few_collections  # noqa: E402 (needs ROOT on the path)

# The stack renders as dev, so its names are the dev stack's.
STACK = "dev"
GPU_GROUP = 0
TRAINING_PLAN = "arn:aws:sagemaker:us-west-2:123456789012:training-plan/bench-p5"
# Sizes of the large endpoint: what a heavily customised endpoint might carry.
LARGE_ENV_VARS = 48
LARGE_WORKER_FLAGS = 24
LARGE_ROLE_FLAGS = 8
LARGE_TAGS = 16
LARGE_INIT_CONTAINERS = 4
# What the large endpoint's roles select; the GPU group carries these labels, as it must.
NODE_LABELS = {f"bench/label-{j}": "yes" for j in range(4)}


def _large(endpoint: dict[str, Any]) -> dict[str, Any]:
    """The endpoint with many variables, flags, tags, init containers and an override."""
    role_flags = [f"--bench-role-flag-{j}={j}" for j in range(LARGE_ROLE_FLAGS)]
    init_env = [{"name": f"INIT_{j}", "value": str(j)} for j in range(8)]
    return {
        **endpoint,
        "environmentVariables": {
            **endpoint.get("environmentVariables", {}),
            **{f"BENCH_VAR_{j:02d}": f"value-{j}" for j in range(LARGE_ENV_VARS)},
        },
        "workerArgs": [
            token for j in range(LARGE_WORKER_FLAGS) for token in (f"--bench-flag-{j}", str(j))
        ],
        "prefill": {
            **endpoint["prefill"],
            "args": role_flags,
            "nodeSelector": NODE_LABELS,
        },
        "decode": {
            **endpoint["decode"],
            "args": role_flags,
            "nodeSelector": NODE_LABELS,
        },
        "tags": {f"bench-tag-{j}": f"value-{j}" for j in range(LARGE_TAGS)},
        "loadBalancer": {"routingAlgorithm": "round_robin"},
        "kubernetes": {
            "initContainers": [
                {
                    "name": f"warm-{j}",
                    "image": "public.ecr.aws/docker/library/busybox:1.37",
                    "command": ["sh", "-c", "true"],
                    "env": init_env,
                }
                for j in range(LARGE_INIT_CONTAINERS)
            ]
        },
        # A field no setting describes goes through specOverrides.
        "specOverrides": {"maxDeployTimeInSeconds": 1800},
    }


def stack_config(count: int, *, large: bool) -> dict[str, Any]:
    """The dev stack with `count` copies of its endpoint and the GPU nodes they need."""
    # Imported here, by the parent only: at the top of this file it would load in the children
    # too, and hand the render a YAML library its clock never paid for.
    import yaml

    config = yaml.safe_load((ROOT / f"Pulumi.{STACK}.yaml").read_text())["config"]
    (template,) = config["hyperpod-dpd:endpoints"]
    if large:
        template = _large(template)
    endpoints = []
    for i in range(count):
        name = f"{template['name']}-{i:02d}"
        endpoints.append({**template, "name": name, "endpointName": name})
    config["hyperpod-dpd:endpoints"] = endpoints
    gpu_group = config["hyperpod-dpd:cluster"]["instanceGroups"][GPU_GROUP]
    # The template fills one node per role. A training plan holds that many nodes; the
    # account's on-demand quota (as mocked) holds 16.
    gpu_group["instanceCount"] = count * gpu_group["instanceCount"]
    gpu_group["trainingPlanArn"] = TRAINING_PLAN
    gpu_group["labels"] = NODE_LABELS
    return {"config": config}


# What runs in the fresh interpreters. Each prints wall-clock and CPU seconds, a line per figure.


class Clock:
    """Wall-clock and CPU seconds since it was made. CPU time (every thread of the process)
    barely moves with load from other processes, which makes it the steadier figure on a
    shared machine; wall-clock time is what a user waits."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def elapsed(self) -> str:
        return f"{time.perf_counter() - self.wall} {time.process_time() - self.cpu}"


def _import_sdk(modules_file: str) -> None:
    # The collector's schedule `hyperpod-dpd` runs its commands under, so that a render
    # gains nothing over this import from a cheaper import of its own.
    with few_collections():
        for name in json.loads(Path(modules_file).read_text()):
            module = importlib.import_module(name)
            # The SDKs register subpackages lazily; reading an attribute loads one.
            vars(module)


def _child_import(modules_file: str) -> str:
    clock = Clock()
    _import_sdk(modules_file)
    return clock.elapsed()


def _child_floor(modules_file: str, resources_file: str) -> str:
    """Its import's time on a line of its own, then the whole run's."""
    clock = Clock()
    _import_sdk(modules_file)
    imported = clock.elapsed()
    from sdk_floor import replay

    with few_collections():
        replay(Path(resources_file))
    return f"{imported}\n{clock.elapsed()}"


def _child_render(config_file: str, out: str, modules_file: str | None = None) -> str:
    clock = Clock()
    from tools.cli import main

    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["render", "--stack", STACK, "--config-file", config_file, "--out", out])
    elapsed = clock.elapsed()
    if code != 0:
        raise SystemExit(f"render of {config_file} exited {code}")
    if modules_file is not None:
        loaded = [
            name
            for name, module in sys.modules.items()
            # The SDKs' modules: pulumi, pulumi_aws, ...
            if name.partition(".")[0] == "pulumi" or name.startswith("pulumi_")
            if not isinstance(module, importlib.util._LazyModule)
        ]
        Path(modules_file).write_text(json.dumps(loaded))
    return elapsed


Timing = tuple[float, float]


# A user's Python caches the project's compiled modules in __pycache__ as it does the SDKs'
# (pip compiled those); an environment that turns the cache off would make every render
# recompile the project, a cost the import runs never pay.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _run_child(*args: str) -> list[Timing]:
    """The (wall, CPU) seconds the child printed, a line each."""
    done = subprocess.run(
        [sys.executable, __file__, "--child", *args],
        cwd=ROOT,
        env=CHILD_ENV,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr}")
    return [(float(wall), float(cpu)) for wall, cpu in map(str.split, done.stdout.splitlines())]


# The parent: generate the stacks, alternate the runs, print the tables.

# (import, render, floor, the floor's own import) timings of one repeat of a stack, the import
# run just before the other two; by (size, count).
Runs = dict[tuple[str, int], list[tuple[Timing, Timing, Timing, Timing]]]
IMPORT, RENDER, FLOOR, FLOOR_IMPORT = range(4)


# What sums up the repeats of one kind of run: the median, and the fastest run, which is the
# one least slowed by other work on the machine (a shared machine only ever adds time).
Statistic = Callable[[list[float]], float]
STATISTICS: dict[str, Statistic] = {"median": statistics.median, "fastest": min}


def _time(runs: Runs, key: tuple[str, int], kind: int, clock: int, statistic: Statistic) -> float:
    return statistic([run[kind][clock] for run in runs[key]])


def _per_endpoint(grown: float, counts: tuple[int, int]) -> str:
    """Milliseconds one more endpoint adds, from the time at the first count to the second."""
    first, last = counts
    return f"{grown / (last - first) * 1000:.1f}" if last > first else "-"


def _table(counts: list[int], runs: Runs, clock: int, name: str) -> list[str]:
    """The table of one clock (0 wall, 1 CPU) and one statistic."""
    statistic = STATISTICS[name]
    imports = [run[IMPORT][clock] for repeats in runs.values() for run in repeats]
    lines = [
        f"{('wall clock', 'CPU time')[clock]}, {name} of {len(runs[next(iter(runs))])} runs. "
        f"Imports of the SDK modules: median {statistics.median(imports):.3f} s "
        f"(fastest {min(imports):.3f}, slowest {max(imports):.3f})",
        f"{'endpoint':<9}{'count':>6}{'import s':>10}{'render s':>10}{'ratio':>8}"
        f"{'floor s':>9}{'ratio':>8}{'per endpoint ms':>17}{'floor':>7}",
    ]
    for size in ("plain", "large"):
        for n in counts:
            times = [_time(runs, (size, n), kind, clock, statistic) for kind in range(4)]
            grown = [
                times[kind] - _time(runs, (size, counts[0]), kind, clock, statistic)
                for kind in (RENDER, FLOOR)
            ]
            per = [_per_endpoint(g, (counts[0], n)) for g in grown]
            lines.append(
                f"{size:<9}{n:>6}{times[IMPORT]:>10.3f}{times[RENDER]:>10.3f}"
                f"{times[RENDER] / times[IMPORT]:>7.2f}x{times[FLOOR]:>9.3f}"
                f"{times[FLOOR] / times[FLOOR_IMPORT]:>7.2f}x{per[0]:>17}{per[1]:>7}"
            )
    return lines


CHILDREN = {"import": _child_import, "render": _child_render, "floor": _child_floor}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--counts", type=int, nargs="+", default=[1, 8, 64])
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        kind, *rest = args.child
        print(CHILDREN[kind](*rest))
        return 0

    counts = sorted(set(args.counts))
    if len(counts) < 2:
        parser.error("--counts needs two or more counts, for the per-endpoint cost")
    with tempfile.TemporaryDirectory(prefix="bench-render-") as scratch:
        folder = Path(scratch)
        stacks = {}
        for size in ("plain", "large"):
            for n in counts:
                path = folder / f"Pulumi.{size}-{n}.yaml"
                # JSON is YAML, and the child needs no YAML library before its clock starts.
                path.write_text(json.dumps(stack_config(n, large=size == "large")))
                stacks[(size, n)] = path
        # A first render of each stack records the resources its floor run replays; that of
        # the largest lists the SDK modules every run imports.
        modules_file = folder / "modules.json"
        recorded = {key: folder / f"recorded-{key[0]}-{key[1]}" for key in stacks}
        largest = ("large", counts[-1])
        for key, path in stacks.items():
            listing = [str(modules_file)] if key == largest else []
            _run_child("render", str(path), str(recorded[key]), *listing)
        modules = json.loads(modules_file.read_text())
        print(
            f"{len(modules)} SDK modules the render loads; {args.repeats} repeats of "
            f"{len(stacks)} stacks, import, render and floor alternately",
            file=sys.stderr,
        )
        runs: Runs = {key: [] for key in stacks}
        for repeat in range(args.repeats):
            for key, path in stacks.items():
                (imported,) = _run_child("import", str(modules_file))
                (rendered,) = _run_child("render", str(path), str(folder / "out"))
                resources = recorded[key] / "resources.json"
                floor_import, floor = _run_child("floor", str(modules_file), str(resources))
                runs[key].append((imported, rendered, floor, floor_import))
            print(f"  repeat {repeat + 1}/{args.repeats} done", file=sys.stderr)
    lines = []
    for clock, name in ((0, "median"), (1, "median"), (1, "fastest")):
        lines += [*_table(counts, runs, clock, name), ""]
    lines += [
        "ratio: the render's time over the import runs', the floor's over its own import's "
        "(the same import, seconds before the replay, so the machine's drift falls out); "
        "each summed up the same way.",
        "floor: the SDK alone registering the same resources (scripts/sdk_floor.py), import "
        "included.",
        f"per endpoint: (time at N - time at {counts[0]}) / (N - {counts[0]}), on the table's "
        "times, for the render and the floor.",
    ]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
