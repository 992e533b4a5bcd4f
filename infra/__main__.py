"""Offline tools over this program: `python -m infra render|size [--stack dev] ...`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from infra import program
from infra.config_errors import ConfigError
from infra.offline.collector import few_collections
from infra.offline.cost_report import stack_cost
from infra.offline.diff_command import run_diff
from infra.offline.fetch_chart import fetch_chart
from infra.offline.render import run_program
from infra.offline.render_report import summary, write_render
from infra.offline.sizing_report import sizing_document, sizing_table
from infra.offline.stack_config import (
    StackConfig,
    StackFileError,
    read_stack_config,
    stack_file,
)
from infra.settings import CheckedConfig, Settings, check_config


def _stack_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument("--stack", default="dev", help="stack name (default: dev)")
    command.add_argument(
        "--config-file", type=Path, help="stack config file (default: Pulumi.<stack>.yaml)"
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m infra")
    commands = parser.add_subparsers(dest="command", required=True)
    render = commands.add_parser(
        "render", help="run the program under mocks and write what it would deploy"
    )
    _stack_arguments(render)
    render.add_argument("--out", type=Path, help="output directory (default: build/<stack>)")
    size = commands.add_parser(
        "size", help="show each endpoint's KV-cache sizing, PD buffer and decoder HBM"
    )
    _stack_arguments(size)
    size.add_argument("--json", action="store_true", help="print the sizing.json document")
    diff = commands.add_parser(
        "diff", help="compare the stack at a git revision with the working tree (exit 1: changes)"
    )
    diff.add_argument("--base", required=True, help="git revision to compare with, e.g. main")
    _stack_arguments(diff)
    diff.add_argument("--format", choices=("text", "markdown"), default="text")
    commands.add_parser("chart", help="bring the pinned HyperPod dependencies chart to disk")
    return parser


def _stack_config(args: argparse.Namespace) -> StackConfig | None:
    path = args.config_file or stack_file(args.stack)
    if not path.is_file():
        print(f"{path}: no such stack config file", file=sys.stderr)
        return None
    try:
        return read_stack_config(path)
    except StackFileError as unreadable:
        print(unreadable, file=sys.stderr)
        return None


def _out_problem(out: Path) -> str | None:
    """Why `out` can't take a render: the render replaces the directory it names."""
    if out.is_dir():
        if any(out.iterdir()) and not (out / "resources.json").is_file():
            return (
                f"--out: {out} is a directory that holds no earlier render; the render replaces "
                "its contents, so name an empty or new directory, or an earlier render's"
            )
        return None
    if out.exists():
        return f"--out: {out} is an existing file; name a directory (new, empty, or a render's)"
    return None


def _checked(stack: str, config: StackConfig) -> CheckedConfig:
    """The stack's configuration checked as the program checks it, in the same mocked run."""
    checked: list[CheckedConfig] = []
    run_program(stack, config, lambda: checked.append(check_config()))
    return checked[0]


def render(args: argparse.Namespace) -> int:
    out = args.out or Path("build") / args.stack
    refused = _out_problem(out)
    if refused:
        print(refused, file=sys.stderr)
        return 2
    config = _stack_config(args)
    if config is None:
        return 2
    settings: list[Settings] = []
    try:
        result = run_program(args.stack, config, lambda: settings.append(program.main()))
    except ConfigError as invalid:
        print("\n".join(invalid.problems), file=sys.stderr)
        return 2
    sizing = settings[0].sizing
    cost = stack_cost(settings[0].stack.cluster, settings[0].account.region)
    manifests = write_render(result, out, sizing_document(sizing, cost))
    print(summary(result, out, manifests, sizing, cost))
    return 0


def size(args: argparse.Namespace) -> int:
    config = _stack_config(args)
    if config is None:
        return 2
    try:
        checked = _checked(args.stack, config)
    except ConfigError as invalid:
        print("\n".join(invalid.problems), file=sys.stderr)
        return 2
    if args.json:
        cost = stack_cost(checked.stack.cluster, checked.region)
        print(json.dumps(sizing_document(checked.sizing, cost), indent=2))
    else:
        print("\n\n".join("\n".join(sizing_table(report)) for report in checked.sizing))
    # Printed even so: the figures above are what explains these errors.
    if checked.sizing_errors:
        print("\n".join(checked.sizing_errors), file=sys.stderr)
        return 2
    return 0


def diff(args: argparse.Namespace) -> int:
    path = args.config_file or stack_file(args.stack)
    if not path.is_file():
        print(f"{path}: no such stack config file", file=sys.stderr)
        return 2
    return run_diff(args.base, args.stack, path, markdown=args.format == "markdown")


def chart(args: argparse.Namespace) -> int:
    print(f"HyperPod dependencies chart ready in {fetch_chart()}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    commands = {"render": render, "size": size, "diff": diff, "chart": chart}
    with few_collections():
        return commands[args.command](args)


def _run() -> int:
    """main, ending quietly when the reader of stdout goes away (`python -m infra size | head`)."""
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # Python's advice (signal module docs, "Note on SIGPIPE"): point stdout at devnull so
        # the flush at exit does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status


if __name__ == "__main__":
    sys.exit(_run())
