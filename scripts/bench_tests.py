"""How long the program's test suite takes, as `make test` runs it: wall-clock and CPU time.

The CPU time is every process the run starts (pytest's workers, and the renders, linters and
scanners the tests start in turn): the children's resource usage, which counts each process
once it has been waited for. Several runs give each one and their medians. Claims about the
suite's speed come from here, never from a test that times itself.

Usage: .venv/bin/python scripts/bench_tests.py [--runs 3] [pytest arguments...]
"""

import argparse
import re
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="how many runs (default 1)")
    parser.add_argument("pytest", nargs="*", help="pytest arguments in place of make test's")
    args = parser.parse_args()
    arguments = args.pytest
    if not arguments:
        # The arguments `make test` gives pytest, read from the Makefile that holds them.
        makefile = (ROOT / "Makefile").read_text()
        found = re.search(r"^PYTEST_ARGS := (.*)$", makefile, re.MULTILINE)
        if found is None:
            raise SystemExit("Makefile: no PYTEST_ARGS line to run the suite with")
        arguments = found.group(1).split()
    print(f"pytest {' '.join(arguments)}, {args.runs} run(s)")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *arguments]
    runs = []
    for run in range(1, args.runs + 1):
        cpu, wall = _children_cpu(), time.perf_counter()
        done = subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL)
        wall, cpu = time.perf_counter() - wall, _children_cpu() - cpu
        if done.returncode != 0:
            raise SystemExit(f"pytest exited {done.returncode}: {' '.join(command)}")
        runs.append((wall, cpu))
        print(f"run {run}: {wall:6.1f} s wall  {cpu:6.1f} s CPU")
    if len(runs) > 1:
        walls, cpus = zip(*runs, strict=True)
        print(
            f"median: {statistics.median(walls):6.1f} s wall  {statistics.median(cpus):6.1f} s CPU"
        )


if __name__ == "__main__":
    main()
