"""The offline tools' command line, `hyperpod-dpd render|size|diff|plan|chart ...`, with
`bench` and `diagnose` for the live endpoint and `import-endpoint` to adopt one."""

import argparse
import contextlib
import io
import json
import os
import re
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, TypeVar

from components.core.terminal_text import printable
from infra import program
from infra.collector import few_collections
from infra.config_errors import ConfigError
from infra.settings import check_config, load_settings
from tools.bench.bench_command import add_bench_commands, run_bench
from tools.diagnose.diagnose_command import add_diagnose_command, run_diagnose
from tools.diff.diff_command import run_diff
from tools.fetch_chart import ChartError, fetch_chart
from tools.import_endpoint.import_command import add_import_command, run_import
from tools.network_pins import PinError, pin_commands
from tools.plan_command import add_plan_commands, run_plan
from tools.render.destroy_order import destroy_lines
from tools.render.mocks.account import ACCOUNT_ID
from tools.render.render import RenderResult, run_program
from tools.render.render_output import out_problem
from tools.render.render_report import report, write_render
from tools.render.stack_config import StackFileError, read_stack_config, stack_file
from tools.reports.cost_report import stack_cost
from tools.reports.prediction_report import (
    prediction_document,
    prediction_lines,
    predictions_markdown,
)
from tools.reports.sizing_report import sizing_document, sizing_table

T = TypeVar("T")

EXAMPLES = {
    "render": "hyperpod-dpd render --stack prod --out build/prod",
    "size": "hyperpod-dpd size --stack dev --json",
    "diff": "hyperpod-dpd diff --base main --stack dev --format markdown",
    "chart": "hyperpod-dpd chart",
    "destroy-order": "hyperpod-dpd destroy-order --stack dev",
    "plan": "hyperpod-dpd plan --stack dev",
    "plan predict": "hyperpod-dpd plan predict --scenario scenario.yaml --json",
    "plan recommend": "hyperpod-dpd plan recommend --scenario scenario.yaml --emit-endpoint",
    "bench": "hyperpod-dpd bench --endpoint dpd-test --account-id 123456789012 --out bench.yaml",
    "bench results": "hyperpod-dpd bench results --endpoint dpd-test --result bench.log --record",
    "diagnose": "hyperpod-dpd diagnose --stack dev --endpoint dpd-test --save diagnosis",
    "import-endpoint": "hyperpod-dpd import-endpoint live.yaml --stack dev",
    "pin-network": "hyperpod-dpd pin-network --stack dev --state state.json",
}

# Pulumi's own rule for stack names (pulumi/pulumi, the backends' validateStackName); it also
# keeps the name from reaching outside the project through Pulumi.<stack>.yaml.
_STACK_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")


def _stack_name(name: str) -> str:
    if not _STACK_NAME.match(name):
        raise argparse.ArgumentTypeError(
            f"{name!r} is not a stack name; Pulumi takes 1 to 100 letters, digits, '-', '_' or '.'"
        )
    if not name.strip("."):
        # Pulumi's pattern takes them, but as build/<stack> they name the folder above.
        raise argparse.ArgumentTypeError(
            f"{name!r} is not a stack name; it needs a letter or digit"
        )
    return name


def _account_id(value: str) -> str:
    if not re.fullmatch(r"\d{12}", value):
        raise argparse.ArgumentTypeError(f"{value!r} is not an AWS account ID; it is 12 digits")
    return value


def _stack_arguments(command: argparse.ArgumentParser, config: bool = True) -> None:
    command.add_argument(
        "--stack", type=_stack_name, default="dev", help="stack name (default: dev)"
    )
    if not config:
        return
    command.add_argument(
        "--config-file", type=Path, help="stack config file (default: Pulumi.<stack>.yaml)"
    )
    command.add_argument(
        "--account",
        type=_account_id,
        help=f"the AWS account the mocks answer as, for ARNs of your own (default: {ACCOUNT_ID})",
    )


class _Parser(argparse.ArgumentParser):
    """argparse, whose refusal is one line naming the argument (`--help` shows the usage)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="hyperpod-dpd")
    commands = parser.add_subparsers(dest="command", required=True)

    def stacked(name: str, help_text: str) -> argparse.ArgumentParser:
        command = commands.add_parser(name, help=help_text)
        _stack_arguments(command)
        return command

    render = stacked("render", "run the program under mocks and write what it would deploy")
    render.add_argument("--out", type=Path, help="output directory (default: build/<stack>)")
    render.add_argument(
        "--verbose", action="store_true", help="print everything plan.md keeps, not the summary"
    )
    size = stacked("size", "show each endpoint's KV-cache sizing, PD buffer and decoder HBM")
    size.add_argument("--json", action="store_true", help="print the sizing.json document")
    diff = commands.add_parser(
        "diff", help="compare the stack at a git revision with the working tree (exit 1: changes)"
    )
    diff.add_argument("--base", required=True, help="git revision to compare with, e.g. main")
    _stack_arguments(diff)
    diff.add_argument(
        "--format",
        choices=("text", "markdown"),
        default="text",
        help="text for a terminal, markdown for a pull-request comment (default: text)",
    )
    commands.add_parser("chart", help="bring the pinned HyperPod dependencies chart to disk")
    pin = commands.add_parser(
        "pin-network",
        help="print the `pulumi config set` commands that keep a deployed stack's subnets",
    )
    _stack_arguments(pin, config=False)
    pin.add_argument("--state", type=Path, required=True, help="the `pulumi stack export` file")
    stacked("destroy-order", "list the waves in which `pulumi destroy` deletes the stack")
    plan = add_plan_commands(commands)
    # Without an action, `plan [--stack dev]` predicts every endpoint of the stack.
    _stack_arguments(plan)
    plan.add_argument("--json", action="store_true", help="print each endpoint's prediction")
    add_bench_commands(commands, _stack_arguments, _account_id)
    add_diagnose_command(commands, _stack_arguments)
    add_import_command(commands, _stack_name, _account_id)
    for name, command in subcommands(parser).items():
        command.epilog = f"example:\n  {EXAMPLES[name]}"
        command.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


def subcommands(parser: argparse.ArgumentParser, prefix: str = "") -> dict:
    """Every command under `parser`, by its name as typed (`plan predict`), at any depth."""
    found = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                found[prefix + name] = command
                found |= subcommands(command, f"{prefix}{name} ")
    return found


def _run_stack(args: argparse.Namespace, main: Callable[[], T]) -> tuple[RenderResult, T] | None:
    """The program run under mocks, and what `main` returned; None once the problems are printed."""
    try:
        config = read_stack_config(args.config_file or stack_file(args.stack))
    except StackFileError as unreadable:
        print(unreadable, file=sys.stderr)
        return None
    returned: list[T] = []
    try:
        result = run_program(args.stack, config, lambda: returned.append(main()), args.account)
    except ConfigError as invalid:
        print("\n".join(invalid.problems), file=sys.stderr)
        return None
    return result, returned[0]


def _checked_stack(args: argparse.Namespace, check: Callable[[], T] = check_config) -> T | None:
    """The config checked as the program checks it: by check_config, or load_settings."""
    ran = _run_stack(args, check)
    return None if ran is None else ran[1]


def render(args: argparse.Namespace) -> int:
    out = args.out or Path("build") / args.stack
    refused = out_problem(out)
    if refused:
        print(refused, file=sys.stderr)
        return 2
    out = out.resolve()
    ran = _run_stack(args, program.main)
    if ran is None:
        return 2
    result, settings = ran
    sizing, predictions = settings.sizing, settings.predictions
    names = [endpoint.name for endpoint in settings.stack.endpoints]
    cost = stack_cost(settings.stack.cluster, settings.account.region)
    document = sizing_document(
        sizing, cost, [prediction_document(p) for p in predictions], settings.rollouts
    )
    found = report(result, sizing, cost, names, predictions)
    plan = predictions_markdown(names, predictions)
    try:
        manifests = write_render(result, out, document, plan, found)
    except OSError as failed:
        print(f"--out: cannot write {out}: {failed.strerror or failed}", file=sys.stderr)
        return 2
    if not args.verbose:
        found = report(result, sizing, cost, names, predictions, out / "plan.md")
    print("\n".join(found))
    files = f"{len(manifests)} manifest{'' if len(manifests) == 1 else 's'}"
    print(f"\nWrote {out}: resources.json, sizing.json, graph.mmd, plan.md, {files} in manifests/")
    return 0


def size(args: argparse.Namespace) -> int:
    checked = _checked_stack(args)
    if checked is None:
        return 2
    names = [endpoint.name for endpoint in checked.stack.endpoints]
    if args.json:
        cost = stack_cost(checked.stack.cluster, checked.region)
        predicted = [prediction_document(p) for p in checked.predictions]
        document = sizing_document(checked.sizing, cost, predicted, checked.rollouts)
        print(json.dumps(document, indent=2))
    else:
        tables = [
            sizing_table(sized) + (["", *prediction_lines(name, prediction)] if prediction else [])
            for name, sized, prediction in zip(
                names, checked.sizing, checked.predictions, strict=True
            )
        ]
        print("\n\n".join("\n".join(table) for table in tables))
    # Printed even so: the figures above are what explains these errors.
    if checked.sizing_errors:
        print("\n".join(checked.sizing_errors), file=sys.stderr)
        return 2
    return 0


def plan(args: argparse.Namespace) -> int:
    if args.plan_command:
        return run_plan(args)
    checked = _checked_stack(args)
    if checked is None:
        return 2
    names = [endpoint.name for endpoint in checked.stack.endpoints]
    if args.json:
        documents = [prediction_document(p) for p in checked.predictions]
        print(json.dumps(dict(zip(names, documents, strict=True)), indent=2))
        return 0
    lines = predictions_markdown(names, checked.predictions)
    # An endpoint the planner cannot predict (an engine it has no model of) says why.
    unpredicted = [w for w in checked.warnings if ": no prediction: " in w]
    if not lines:
        print(
            "\n".join(unpredicted)
            or f"No endpoint of stack {args.stack} has a workload to predict: set "
            "endpoints[i].workload with outputTokens, and requestsPerSecond or concurrency"
        )
        return 0
    if unpredicted:
        print("\n".join(unpredicted), end="\n\n")
    for name, prediction in zip(names, checked.predictions, strict=True):
        if prediction:
            print("\n".join(prediction_lines(name, prediction)), end="\n\n")
    print("\n".join(lines))
    return 0


def diff(args: argparse.Namespace) -> int:
    # Checked here first: a stack file the head cannot render is refused as render refuses
    # it, before git or a render runs.
    if _checked_stack(args, load_settings) is None:
        return 2
    path = args.config_file or stack_file(args.stack)
    return run_diff(
        args.base, args.stack, path, markdown=args.format == "markdown", account_id=args.account
    )


def pin_network(args: argparse.Namespace) -> int:
    try:
        print("\n".join(pin_commands(args.stack, args.state)))
    except PinError as refused:
        print(f"pin-network: {refused}", file=sys.stderr)
        return 2
    return 0


def destroy_order(args: argparse.Namespace) -> int:
    ran = _run_stack(args, program.main)
    if ran is None:
        return 2
    print("\n".join(destroy_lines([r.as_json() for r in ran[0].resources])))
    return 0


def chart(args: argparse.Namespace) -> int:
    try:
        print(f"HyperPod dependencies chart ready in {fetch_chart()}")
    except ChartError as failed:
        print(f"make chart: {failed}", file=sys.stderr)
        return 2
    return 0


class _PrintableStream(io.TextIOBase):
    """A text stream that writes through `printable`, so that no value a command prints (a
    stack file's, a bundle's, a git revision's) can move the cursor, erase a line or reorder
    text in the user's terminal."""

    def __init__(self, stream: io.TextIOBase) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        self._stream.write(printable(text))
        return len(text)

    def flush(self) -> None:
        self._stream.flush()


def main(argv: list[str] | None = None) -> int:
    """Every line every command prints, argparse's errors included, goes through `printable`."""
    with (
        contextlib.redirect_stdout(_PrintableStream(sys.stdout)),
        contextlib.redirect_stderr(_PrintableStream(sys.stderr)),
    ):
        args = _parser().parse_args(argv)
        commands = {
            "render": render,
            "size": size,
            "diff": diff,
            "chart": chart,
            "plan": plan,
            "destroy-order": destroy_order,
            "pin-network": pin_network,
            "bench": lambda args: run_bench(args, _checked_stack),
            "diagnose": lambda args: run_diagnose(args, _checked_stack),
            "import-endpoint": run_import,
        }
        with few_collections():
            return commands[args.command](args)


def _terminated(signum: int, _frame: object) -> None:
    # As an exception, SIGTERM runs the `finally` blocks that remove a render's scratch folder.
    raise SystemExit(128 + signum)


def run() -> int:
    """main, ending quietly when the reader of stdout goes away (`hyperpod-dpd size | head`)."""
    signal.signal(signal.SIGTERM, _terminated)
    # A console that can't show a character (→ on Windows' cp1252) gets '?', not a traceback.
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(errors="replace")
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # Python's advice (signal module docs, "Note on SIGPIPE"): point stdout at devnull so
        # the flush at exit does not raise again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return status
