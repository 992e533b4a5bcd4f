"""Offline tools over this program: `python -m infra render [--stack dev] ...`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from infra import program
from infra.config_errors import ConfigError
from infra.fetch_chart import fetch_chart
from infra.render import run_program
from infra.render_report import summary, write_render
from infra.stack_config import read_stack_config, stack_file


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m infra")
    commands = parser.add_subparsers(dest="command", required=True)
    render = commands.add_parser(
        "render", help="run the program under mocks and write what it would deploy"
    )
    render.add_argument("--stack", default="dev", help="stack name (default: dev)")
    render.add_argument(
        "--config-file", type=Path, help="stack config file (default: Pulumi.<stack>.yaml)"
    )
    render.add_argument("--out", type=Path, help="output directory (default: build/<stack>)")
    commands.add_parser("chart", help="bring the pinned HyperPod dependencies chart to disk")
    return parser


def render(args: argparse.Namespace) -> int:
    path = args.config_file or stack_file(args.stack)
    if not path.is_file():
        print(f"{path}: no such stack config file", file=sys.stderr)
        return 2
    try:
        result = run_program(args.stack, read_stack_config(path), program.main)
    except ConfigError as invalid:
        print("\n".join(invalid.problems), file=sys.stderr)
        return 2
    out = args.out or Path("build") / args.stack
    manifests = write_render(result, out)
    print(summary(result, out, manifests))
    return 0


def chart(args: argparse.Namespace) -> int:
    print(f"HyperPod dependencies chart ready in {fetch_chart()}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return {"render": render, "chart": chart}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
