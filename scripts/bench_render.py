"""How close the program comes to the least the Pulumi SDK needs to register its resources:
"program" (`__main__.py` as `pulumi preview` runs it), "render" (`hyperpod-dpd render`) and
"floor" (scripts/sdk_floor.py), each in a fresh interpreter, alternating, on generated stacks of
N plain or large copies of the dev endpoint. docs/contributing/render-speed.md says what each
times and why; the tables give CPU and wall-clock medians (fastest-slowest) and ratios to the
floor.

Usage: .venv/bin/python scripts/bench_render.py [--repeats 5] [--counts 1 8 64]
"""

import argparse
import contextlib
import importlib
import io
import json
import os
import runpy
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from infra.collector import few_collections  # noqa: E402 (needs ROOT on the path)

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
    # The plan's /19 holds 101 nodes; a /17 clear of the plan's subnets holds them all.
    az = gpu_group["availabilityZoneId"]
    config["hyperpod-dpd:network"]["privateSubnetCidrs"] = {az: "10.0.0.0/17"}
    return {"config": config}


# What runs in the fresh interpreters. Each prints wall-clock and CPU seconds, a line per figure,
# and the floor and the program the number of resources the mocks were asked for.


class Clock:
    """Wall-clock and CPU seconds since it was made."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def elapsed(self) -> str:
        return f"{time.perf_counter() - self.wall} {time.process_time() - self.cpu}"


def _child_floor(modules_file: str, region: str, resources_file: str) -> str:
    """Its import's time, then the whole run's, then how many resources it registered."""
    clock = Clock()
    with few_collections():
        for name in json.loads(Path(modules_file).read_text()):
            # The SDKs register subpackages lazily; reading an attribute loads one.
            vars(importlib.import_module(name))
        imported = clock.elapsed()
        from sdk_floor import replay

        count = replay(Path(resources_file), region)
    return f"{imported}\n{clock.elapsed()}\n{count}"


def _child_program(cli_config_file: str, modules_file: str | None = None) -> str:
    """`__main__.py` as the language host runs it, in preview, with the CLI's config."""
    clock = Clock()
    import pulumi
    from sdk_floor import in_preview

    cli_config = json.loads(Path(cli_config_file).read_text())
    pulumi.runtime.set_all_config(cli_config["values"], cli_config["secret_keys"])
    region = cli_config["values"]["aws:region"]
    main = str(ROOT / "__main__.py")
    count = in_preview(region, lambda: runpy.run_path(main, run_name="__main__"))
    elapsed = clock.elapsed()
    if modules_file is not None:
        loaded = [
            name
            for name, module in sys.modules.items()
            # The SDKs' modules: pulumi, pulumi_aws, ..., pulumiverse_time
            if name.startswith("pulumi")
            if not isinstance(module, importlib.util._LazyModule)
        ]
        Path(modules_file).write_text(json.dumps(loaded))
    return f"{elapsed}\n{count}"


def _child_render(config_file: str, out: str) -> str:
    clock = Clock()
    from tools.cli import main

    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["render", "--stack", STACK, "--config-file", config_file, "--out", out])
    elapsed = clock.elapsed()
    if code != 0:
        raise SystemExit(f"render of {config_file} exited {code}")
    return elapsed


Timing = tuple[float, float]


# A user's Python caches the project's compiled modules in __pycache__ as it does the SDKs'
# (pip compiled those); an environment that turns the cache off would make every render
# recompile the project, a cost the floor never pays.
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def _run_child(*args: str) -> list[list[str]]:
    """The lines the child printed, split: (wall, CPU) seconds, or a count of resources."""
    done = subprocess.run(
        [sys.executable, __file__, "--child", *args],
        cwd=ROOT,
        env=CHILD_ENV,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed:\n{done.stderr}")
    return [line.split() for line in done.stdout.splitlines()]


# The parent: generate the stacks, alternate the runs, print the tables.

# (floor's import, floor, program, render) timings of one repeat of a stack, by (size, count).
Runs = dict[tuple[str, int], list[tuple[Timing, Timing, Timing, Timing]]]
FLOOR_IMPORT, FLOOR, PROGRAM, RENDER = range(4)


def _spread(values: list[float]) -> str:
    """The median, and the fastest and slowest run."""
    return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def _table(counts: list[int], runs: Runs, clock: int) -> list[str]:
    """The table of one clock (0 wall, 1 CPU): seconds as median (fastest-slowest), and the
    ratios of the medians over the floor's."""
    lines = [
        f"{('Wall-clock', 'CPU')[clock]} seconds, median (fastest-slowest) of "
        f"{len(runs[next(iter(runs))])} runs; ratios of the medians over the floor's",
        f"{'stack':<10}{'floor (its import)':>30}{'program':>24}{'/floor':>8}"
        f"{'render':>24}{'/floor':>8}",
    ]
    for size in ("plain", "large"):
        for n in counts:
            times = [[run[kind][clock] for run in runs[(size, n)]] for kind in range(4)]
            floor = statistics.median(times[FLOOR])
            ratios = [statistics.median(times[kind]) / floor for kind in (PROGRAM, RENDER)]
            lines.append(
                f"{f'{size} {n}':<10}{_spread(times[FLOOR]):>21}"
                f"{f'({statistics.median(times[FLOOR_IMPORT]):.3f})':>9}"
                f"{_spread(times[PROGRAM]):>24}{ratios[0]:>7.3f}x"
                f"{_spread(times[RENDER]):>24}{ratios[1]:>7.3f}x"
            )
    return lines


def _verdict(key: tuple[str, int], runs: Runs) -> list[str]:
    """Each figure against its bound, on CPU medians."""
    cpu = [statistics.median(run[kind][1] for run in runs[key]) for kind in range(4)]
    return [
        f"{key[0]} {key[1]}: {name} {cpu[kind]:.3f} s / floor {cpu[FLOOR]:.3f} s = "
        f"{cpu[kind] / cpu[FLOOR]:.3f}x, {'within' if cpu[kind] <= bound * cpu[FLOOR] else 'OVER'} "
        f"{bound}x"
        for name, kind, bound in (("program", PROGRAM, 1.1), ("render", RENDER, 1.3))
    ]


CHILDREN = {"floor": _child_floor, "program": _child_program, "render": _child_render}


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

    from tools.render.stack_config import to_stack_config

    counts = sorted(set(args.counts))
    with tempfile.TemporaryDirectory(prefix="bench-render-") as scratch:
        folder = Path(scratch)
        stacks = {}
        for size in ("plain", "large"):
            for n in counts:
                config = stack_config(n, large=size == "large")
                path = folder / f"Pulumi.{size}-{n}.yaml"
                # JSON is YAML, and the child needs no YAML library before its clock starts.
                path.write_text(json.dumps(config))
                cli = to_stack_config(config["config"])
                cli_path = folder / f"cli-{size}-{n}.json"
                cli_path.write_text(json.dumps(vars(cli)))
                stacks[(size, n)] = path, cli_path, cli.values["aws:region"]
        # A first render of each stack records the resources its floor replays; a first run
        # of the program on the largest lists the SDK modules every floor imports.
        modules_file = folder / "modules.json"
        recorded = {key: folder / f"recorded-{key[0]}-{key[1]}" for key in stacks}
        for key, (path, _, _) in stacks.items():
            _run_child("render", str(path), str(recorded[key]))
        _run_child("program", str(stacks[("large", counts[-1])][1]), str(modules_file))
        modules = json.loads(modules_file.read_text())
        print(
            f"{len(modules)} SDK modules the program loads; {args.repeats} repeats of "
            f"{len(stacks)} stacks, floor, program and render alternately",
            file=sys.stderr,
        )
        runs: Runs = {key: [] for key in stacks}
        for repeat in range(args.repeats):
            for key, (path, cli_path, region) in stacks.items():
                resources = recorded[key] / "resources.json"
                *floor, floored = _run_child("floor", str(modules_file), region, str(resources))
                program, registered = _run_child("program", str(cli_path))
                if floored != registered:
                    raise SystemExit(
                        f"{key}: the floor registered {floored}, the program {registered}"
                    )
                rendered = _run_child("render", str(path), str(folder / "out"))
                timings = [*floor, program, *rendered]
                runs[key].append(tuple((float(wall), float(cpu)) for wall, cpu in timings))
            print(f"  repeat {repeat + 1}/{args.repeats} done", file=sys.stderr)
    lines = []
    for clock in (1, 0):
        lines += [*_table(counts, runs, clock), ""]
    lines += [
        "floor: the SDK alone registering the same resources through the same mocks, in "
        "preview (scripts/sdk_floor.py), import included; its import alone in brackets.",
        "program: __main__.py as `pulumi preview` runs it; render: `hyperpod-dpd render`, "
        "reports and files included.",
        "",
        *_verdict(("plain", counts[-1]), runs),
        *_verdict(("large", counts[-1]), runs),
    ]
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
