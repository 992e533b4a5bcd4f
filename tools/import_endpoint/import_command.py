"""`hyperpod-dpd import-endpoint FILE [--stack NAME]`: the endpoint items that write a file's
InferenceEndpointConfigs back, checked by rendering them, and the `pulumi import` that adopts
the live objects.

Standard output is the YAML list of items, each with comments saying where it came from and
what the stack writes that the manifest leaves out. Without `--stack` the items are rendered in
the example stack on an existing cluster (examples/Pulumi.shared-cluster.yaml); with it, in that
stack beside its own endpoints, and then appended to its file, with the `pulumi import` lines on
standard error. A manifest the CRD refuses, or that no item writes back field for field, exits 2
with one line per problem naming the manifest's field; nothing is appended then.
"""

import argparse
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from components.core.regions import arn_parts
from components.core.user_files import writable_problem
from infra.config_errors import config_key
from infra.paths import ROOT
from tools.import_endpoint.adoption import (
    import_command,
    import_file,
    import_file_path,
    import_file_problem,
    write_import_file,
)
from tools.import_endpoint.manifests import Manifest, Refusal, read_manifests
from tools.import_endpoint.reverse import Reading, owners_of, read_item
from tools.import_endpoint.round_trip import (
    addition_reason,
    compare,
    registered_object,
    render_stack,
    with_items,
)
from tools.import_endpoint.stack_file import StackEditError, append_items
from tools.render.render import RenderResult
from tools.render.stack_config import StackConfig, StackFileError, read_stack_config, stack_file
from tools.render.yaml_io import dump

EXAMPLE_STACK = "shared-cluster"
EXAMPLE_FILE = ROOT / "examples" / f"Pulumi.{EXAMPLE_STACK}.yaml"
_PROBLEM = re.compile(rf"^{re.escape(config_key('endpoints'))}\[(\d+)\]\.?([^:]*): (.*)$", re.S)


def add_import_command(
    commands: Any, stack_name: Callable[[str], str], account_id: Callable[[str], str]
) -> None:
    command = commands.add_parser(
        "import-endpoint",
        help="the endpoint items that write an InferenceEndpointConfig back, and its import",
    )
    command.add_argument(
        "file", type=Path, help="YAML file of one or more InferenceEndpointConfigs"
    )
    command.add_argument(
        "--stack",
        type=stack_name,
        help="append the items to Pulumi.<stack>.yaml and print the `pulumi import` for it",
    )
    command.add_argument(
        "--config-file", type=Path, help="the stack's file (default: Pulumi.<stack>.yaml)"
    )
    command.add_argument(
        "--account",
        type=account_id,
        help="the AWS account the mocks answer as, for the stack's own ARNs",
    )


def _field_of(reading: Reading, key: str) -> str:
    """The manifest field behind the item key `key` (or behind the closest key above it)."""
    parts = key.split(".")
    while parts:
        found = reading.sources.get(".".join(parts))
        if found:
            return found
        parts.pop()
    return "spec"


def _stack_problems(
    problems: list[str], manifests: list[Manifest], readings: list[Reading], first: int
) -> list[str]:
    lines = []
    for problem in problems:
        found = _PROBLEM.match(problem)
        index = int(found[1]) - first if found else -1
        if not 0 <= index < len(manifests):
            lines.append(f"the stack refuses the items: {problem}")
            continue
        field = _field_of(readings[index], found[2])
        setting = f"its {found[2]}" if found[2] else "it"
        lines.append(f"{manifests[index].where}: {field}: the stack refuses {setting}: {found[3]}")
    return lines


def _header(manifest: Manifest, added: list[str], chosen: list[str]) -> list[str]:
    out = [f"# {manifest.where}: {manifest.namespace}/{manifest.name}, adopted under its name."]
    out += [f"# Chosen by the import: {why}" for why in chosen]
    if added:
        # The metadata is no pod's; in the spec, the operator rolls the pods if what they run
        # changes.
        out.append("# The first `pulumi up` adds, where the live object sets nothing:")
        owners = owners_of(manifest.spec)
        out += [f"#   {path}: {addition_reason(path, owners)}" for path in added]
    kept = manifest.body["metadata"]
    for key in ("labels", "annotations"):
        for name in kept.get(key, {}):
            out.append(f"# Not carried: metadata.{key}.{name} (the first `pulumi up` removes it)")
    return out


def _stack_path(args: argparse.Namespace) -> Path:
    return args.config_file or stack_file(args.stack)


def _accounts(text: str) -> set[str]:
    """The accounts the ARNs in `text` name."""
    found = (arn_parts(arn)["account"] for arn in re.findall(r"arn:[^\s\"',]+", text))
    return {account for account in found if re.fullmatch(r"\d{12}", account)}


def _context(
    args: argparse.Namespace, manifests: list[Manifest]
) -> tuple[str, StackConfig, str | None, int]:
    """The stack the items render in, its config with them, the mocks' account, and the index
    of the first item among its endpoints. The example stack stands in for the live one, so it
    takes the one account the manifests' ARNs name (a certificate must be in the stack's)."""
    if args.stack:
        config = read_stack_config(_stack_path(args))
        return args.stack, config, args.account, -1
    config = read_stack_config(EXAMPLE_FILE)
    (example,) = _accounts(config.values[config_key("cluster")])
    named = {a for m in manifests for a in _accounts(json.dumps(m.spec))}
    account = args.account or (named.pop() if len(named) == 1 else example)
    if account != example:
        values = {k: v.replace(example, account) for k, v in config.values.items()}
        config = StackConfig(values, config.secret_keys)
    return EXAMPLE_STACK, config, account, 0


def run_import(args: argparse.Namespace) -> int:
    found = read_manifests(args.file)
    refusals = [r.line() for r in found if isinstance(r, Refusal)]
    manifests = [m for m in found if isinstance(m, Manifest)]
    readings = [read_item(m) for m in manifests]
    refusals += [
        f"{m.where}: {field}: {problem}"
        for m, reading in zip(manifests, readings, strict=True)
        for field, problem in reading.problems
    ]
    if refusals:
        print("\n".join(refusals), file=sys.stderr)
        return 2
    try:
        stack, config, account, first = _context(args, manifests)
    except StackFileError as unreadable:
        print(unreadable, file=sys.stderr)
        return 2
    items = [reading.item for reading in readings]
    if first < 0:
        first = len(json.loads(config.values.get(config_key("endpoints"), "[]")))
    result = render_stack(stack, with_items(config, items, replace=not args.stack), account)
    if not isinstance(result, RenderResult):
        print("\n".join(_stack_problems(result, manifests, readings, first)), file=sys.stderr)
        return 2
    return _finish(args, stack, result, manifests, readings)


def _finish(
    args: argparse.Namespace,
    stack: str,
    result: RenderResult,
    manifests: list[Manifest],
    readings: list[Reading],
) -> int:
    items = [reading.item for reading in readings]
    blocks, problems, objects = [], [], []
    for manifest, reading in zip(manifests, readings, strict=True):
        registered = registered_object(result, manifest.name, manifest.namespace)
        comparison = compare(manifest.body, registered.inputs)
        problems += [f"{manifest.where}: {path}: {why}" for path, why in comparison.changed]
        header = _header(manifest, comparison.added, reading.chosen)
        if any(path.startswith("spec.") for path in comparison.added):
            print(
                f"{manifest.where}: the first `pulumi up` adds to its spec what the live object "
                "leaves out, and the operator rolls the pods if what they run changes; see the "
                "item's comments",
                file=sys.stderr,
            )
        blocks.append("\n".join([*header, dump([reading.item])]))
        objects.append(registered)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 2
    text = "\n".join(blocks)
    if args.stack:
        path = import_file_path(_stack_path(args), stack, [m.name for m in manifests])
        refused = [
            f"{file}: {problem}"
            for file, problem in (
                (_stack_path(args), writable_problem(_stack_path(args))),
                (path, import_file_problem(path)),
            )
            if problem
        ]
        try:
            if refused:
                raise StackEditError(refused[0])
            append_items(_stack_path(args), items, text)
            write_import_file(path, import_file(result, objects))
        except StackEditError as failed:
            print(failed, file=sys.stderr)
            return 2
        except OSError as failed:
            print(f"{path}: cannot be written ({failed.strerror or failed})", file=sys.stderr)
            return 2
    print(text, end="")
    if args.stack:
        print(
            f"# Appended to {_stack_path(args)}, and wrote {path}. Adopt the live objects "
            "before the next `pulumi up`:",
            import_command(stack, path),
            sep="\n",
            file=sys.stderr,
        )
    else:
        print(
            "# Rendered in the example stack on an existing cluster; add --stack NAME to append "
            "the items to Pulumi.NAME.yaml and print the `pulumi import` that adopts them.",
            file=sys.stderr,
        )
    return 0
