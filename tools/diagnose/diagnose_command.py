"""`hyperpod-dpd diagnose`: what the cluster (read-only, bundle.py) or a saved bundle shows of an
endpoint, then one finding per known signature (signatures.py). Exit 0 healthy, 1 with
findings, 2 on bad input or no access, with kubectl's error in one line."""

import argparse
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

from components.core.terminal_text import one_line
from infra.settings import CheckedConfig
from tools.bench.endpoint import CheckedStack, checked_endpoint, endpoint_parser
from tools.diagnose.bundle import (
    EVENTS,
    IEC,
    OPERATOR,
    PODS,
    ROUTER_EVENTS,
    ROUTER_PODS,
    Bundle,
    BundleError,
    ClusterReader,
    save_problem,
)
from tools.diagnose.cluster_view import (
    endpoint_pods,
    endpoint_status,
    events_of,
    object_name,
    operator_image,
    router_pods,
)
from tools.diagnose.log_lines import median_throughput, pd_roles, retrievals, routings
from tools.diagnose.observed import Observed
from tools.diagnose.signatures import applicable, findings


def add_diagnose_command(
    commands: argparse._SubParsersAction,
    stack_arguments: Callable[[argparse.ArgumentParser], None],
) -> argparse.ArgumentParser:
    diagnose = endpoint_parser(
        commands,
        "diagnose",
        "read an endpoint's objects, events and logs (read-only) and name what is wrong (exit "
        "0 healthy, 1 findings, 2 no access)",
        stack_arguments,
    )
    where = diagnose.add_mutually_exclusive_group()
    where.add_argument("--save", type=Path, help="keep what was read in this new directory")
    where.add_argument(
        "--from", dest="from_dir", type=Path, help="diagnose a bundle --save wrote, offline"
    )
    return diagnose


def _bundle(args: argparse.Namespace, name: str, namespace: str) -> Bundle:
    if args.from_dir is not None:
        return Bundle.load(args.from_dir)
    refused = args.save and save_problem(args.save)
    if refused:
        raise BundleError(refused)
    reader = ClusterReader()
    bundle = reader.read(name, namespace)
    live = object_name(bundle.json(IEC), name)
    pods = endpoint_pods(bundle.json(PODS), live) + router_pods(
        bundle.json(ROUTER_PODS), live, namespace
    )
    reader.read_logs(
        [
            (pod.namespace, pod.name, pod.main, any(c.restarts for c in pod.containers))
            for pod in pods
        ]
    )
    if args.save is not None:
        bundle.save(args.save)
    return bundle


def observe(bundle: Bundle, checked: CheckedConfig, index: int) -> Observed:
    spec = checked.stack.endpoints[index]
    live = object_name(bundle.json(IEC), spec.name)
    pods = endpoint_pods(bundle.json(PODS), live)
    routers = router_pods(bundle.json(ROUTER_PODS), live, spec.namespace)
    names = {pod.name for pod in pods + routers} | {spec.name, live}
    return Observed(
        stack=checked.stack,
        index=index,
        sizing=checked.sizing[index].sizing,
        status=endpoint_status(bundle.json(IEC)),
        pods=pods,
        routers=routers,
        events=events_of(bundle.json(EVENTS), names) + events_of(bundle.json(ROUTER_EVENTS), names),
        logs=bundle.logs(),
        operator_image=operator_image(bundle.json(OPERATOR)),
        captured_at=bundle.captured_at,
        object_name=live,
    )


def summary(seen: Observed) -> list[str]:
    spec, status = seen.spec, seen.status
    messages = "; ".join(c[3] for c in status.conditions if c[3]) or "no condition"
    generation = f" (object {seen.object_name})" if seen.object_name != spec.name else ""
    lines = [
        f"{spec.name}{generation} in {spec.namespace}: state {status.state or '(none)'}: "
        f"{messages}",
        f"  read {seen.captured_at:%Y-%m-%d %H:%M:%S} UTC",
    ]
    for pod in seen.pods + seen.routers:
        lines.append(f"  {pod.role:8} {pod.name}  {pod.ready_text} Ready, {pod.phase}")
    for pod in seen.pods:
        roles = ", ".join(sorted(pd_roles(seen.log(pod)))) or "none printed"
        lines.append(f"  {pod.name}: pd_role {roles}")
    for pod in seen.role("decode"):
        found = retrievals(seen.log(pod))
        if found:
            moved = [r for r in found if r.retrieved > 0]
            median = median_throughput(moved)
            rate = f", median {median:.4g} GB/s" if median is not None else ""
            lines.append(
                f"  {pod.name}: {len(moved)} of {len(found)} KV retrievals moved tokens{rate}"
            )
    decisions = [r for pod in seen.routers for r in routings(seen.log(pod))]
    if decisions:
        share = sum(r.disaggregate for r in decisions) / len(decisions)
        lines.append(
            f"  router: {len(decisions)} requests, {share:.0%} disaggregated "
            f"(threshold {decisions[-1].threshold})"
        )
    return lines


def run_diagnose(args: argparse.Namespace, checked_stack: CheckedStack) -> int:
    # An endpoint of an architecture the stack does not know, as an adopted one often is, is
    # diagnosed too, without the figures sizing gives.
    found_endpoint = checked_endpoint(args, checked_stack, sized=False)
    if found_endpoint is None:
        return 2
    checked, index, spec = found_endpoint
    try:
        bundle = _bundle(args, spec.name, spec.namespace)
        seen = observe(bundle, checked, index)
    except BundleError as refused:
        print(refused, file=sys.stderr)
        return 2
    except OSError as failed:
        print(f"diagnose: {failed.filename}: {failed.strerror}", file=sys.stderr)
        return 2
    found = findings(seen)
    read, skipped = applicable(spec)
    lines = summary(seen)
    if skipped:
        kind = f"{spec.engine} {'colocated' if spec.aggregated else 'DPD'}"
        lines.append(f"  not read on a {kind} endpoint: {', '.join(skipped)}")
    if found:
        lines += ["", f"{len(found)} finding{'s' * (len(found) != 1)}:"]
        for f in found:
            lines += ["", f"[{f.signature}] {f.where}: {f.cause}", f"  seen:   {f.seen}"]
            lines += [f"  change: {f.key}", f"  try:    {f.value}", f"  source: {f.source}"]
    else:
        lines += [
            "",
            f"healthy: none of the {len(read)} known failure signatures is in what was read",
        ]
    if args.save is not None:
        saved = shlex.quote(str(args.save))
        lines += ["", f"Saved what was read in {args.save}; `diagnose --from {saved}` reads it"]
    # A bundle read with --from may name anything: each line stays one line.
    print("\n".join(one_line(line) for line in lines))
    return 1 if found else 0
