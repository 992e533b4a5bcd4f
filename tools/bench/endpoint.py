"""The stack's endpoint a benchmark is about, and the load its workload describes."""

import argparse
import sys
from collections.abc import Callable

from components.endpoint.spec import EndpointSpec
from infra.settings import CheckedConfig
from planner.measured import Load, workload_load


class BenchError(ValueError):
    """Why the Job can't be written; the message starts with the key or flag to change."""


def endpoint_load(index: int, spec: EndpointSpec) -> Load:
    load = workload_load(spec.workload, spec.routing_threshold)
    if load is None:
        raise BenchError(
            f"endpoints[{index}].workload.outputTokens: the benchmark sends the workload's "
            "traffic; set outputTokens, typicalInputTokens and requestsPerSecond or concurrency"
        )
    return load


CheckedStack = Callable[[argparse.Namespace], CheckedConfig | None]


def endpoint_parser(
    commands: argparse._SubParsersAction,
    name: str,
    help_text: str,
    stack_arguments: Callable[[argparse.ArgumentParser], None],
) -> argparse.ArgumentParser:
    parser = commands.add_parser(name, help=help_text)
    stack_arguments(parser)
    parser.add_argument("--endpoint", help="the endpoint's name (endpoints[i].name)")
    return parser


def checked_endpoint(
    args: argparse.Namespace, checked_stack: CheckedStack, sized: bool = True
) -> tuple[CheckedConfig, int, EndpointSpec] | None:
    """The checked stack and the endpoint --endpoint names, `sized` when what follows needs
    its KV sizing; None once the problem is printed."""
    checked = checked_stack(args)
    if checked is None:
        return None
    names = [endpoint.name for endpoint in checked.stack.endpoints]
    listed = ", ".join(names) or "none"
    index = names.index(args.endpoint) if args.endpoint in names else None
    if args.endpoint is None:
        problem = f"--endpoint: name the endpoint; the stack's endpoints: {listed}"
    elif index is None:
        problem = (
            f"--endpoint: the stack has no endpoint {args.endpoint!r}; its endpoints: {listed}"
        )
    elif sized and checked.sizing[index].sizing is None:
        problem = (
            f"endpoints[{index}].architecture: the benchmark is held against the performance "
            "model, which needs the model's architecture; set it"
        )
    else:
        return checked, index, checked.stack.endpoints[index]
    print(problem, file=sys.stderr)
    return None


def labels(spec: EndpointSpec) -> dict[str, str]:
    return {"app.kubernetes.io/name": "vllm-bench", "app.kubernetes.io/instance": spec.name}
