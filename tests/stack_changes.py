"""The dev stack, changed as a careless or hostile user would change it, and what the program
says of it: the one line naming the key, before anything deploys.

Two ways to change it:
- `dev_with({"endpoints[0].workerArgs": [...]})` sets dotted paths under the project, and
  `refusal(changes, key)` is the one problem about `key`;
- a `Change` (`endpoint(...)`, `env(...)`, `setting(...)`) edits the config mapping, and
  `cli_refusal` runs `python -m infra render` on it, which must exit 2 with no traceback and
  write nothing.
"""

from __future__ import annotations

import copy
import itertools
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from components.endpoint.manifest import ENDPOINT_LABEL
from tests.support import config_file, dev_config, endpoint_configs, problem_for, problems, render
from tools.cli import main

P = "hyperpod-dpd"
EP = f"{P}:endpoints[0]"
GROUPS = f"{P}:cluster.instanceGroups"
GPU_GROUP = "cluster.instanceGroups[0]"
SYSTEM_GROUP = "cluster.instanceGroups[1]"


def _set(config: dict[str, Any], path: str, value: Any) -> None:
    """Set `endpoints[0].prefill.args` (a key under the project) in `config`."""
    parts: list[Any] = [
        int(i) if i else name for name, i in re.findall(r"([^.\[\]]+)|\[(\d+)\]", path)
    ]
    parts[0] = f"{P}:{parts[0]}"
    node = config
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


def dev_with(changes: dict[str, Any]) -> dict[str, Any]:
    config = dev_config()
    for path, value in changes.items():
        _set(config, path, copy.deepcopy(value))
    return config


def refusal(changes: dict[str, Any], key: str) -> str:
    return problem_for(f"{P}:{key}", problems(dev_with(changes)))


# A training plan holds the nodes it was bought for, which no on-demand quota counts.
TRAINING_PLAN = "arn:aws:sagemaker:us-west-2:123456789012:training-plan/tests-p5"


def each_rendered(cases: Sequence[dict[str, Any]]) -> list[dict[str, Any] | None]:
    """Each case's InferenceEndpointConfig, from one render of the dev stack with an endpoint
    per case: the dev endpoint as `dev_with` changes it (paths under `endpoints[0]`), named
    apart, on a training plan's GPU nodes for them all. None where a case's is missing."""
    config = dev_config()
    (template,) = config[f"{P}:endpoints"]
    names = [f"{template['name']}-{i}" for i in range(len(cases))]
    config[f"{P}:endpoints"] = [
        {**copy.deepcopy(template), "name": name, "endpointName": name} for name in names
    ]
    for i, changes in enumerate(cases):
        for path, value in changes.items():
            place, under = path.split(".", 1)
            assert place == "endpoints[0]", f"{path}: each case changes its endpoint only"
            _set(config, f"endpoints[{i}].{under}", copy.deepcopy(value))
    group = config[f"{P}:cluster"]["instanceGroups"][0]
    group["instanceCount"] *= len(cases)
    group["trainingPlanArn"] = TRAINING_PLAN
    rendered = {
        (iec["metadata"]["namespace"], iec["metadata"]["labels"][ENDPOINT_LABEL]): iec
        for iec in endpoint_configs(render(config))
    }
    return [
        rendered.get((endpoint.get("namespace", "default"), endpoint["name"]))
        for endpoint in config[f"{P}:endpoints"]
    ]


# The dev stack's network, cluster and buckets, with groups and keys replaced.


def changed(network: dict | None = None, groups: list | None = None, **keys: Any) -> dict:
    config = dev_config()
    if network is not None:
        config[f"{P}:network"] |= network
    if groups is not None:
        config[f"{P}:cluster"]["instanceGroups"] = groups
    config.update(keys)
    return config


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

# Changes to the config mapping, for the command line.
Change = Callable[[dict[str, Any], Path], None]


def endpoint(**changes: Any) -> Change:
    def change(config: dict[str, Any], _: Path) -> None:
        config[f"{P}:endpoints"][0].update(changes)

    return change


def env(name: str, value: Any = "abc123") -> Change:
    def change(config: dict[str, Any], _: Path) -> None:
        config[f"{P}:endpoints"][0]["environmentVariables"][name] = value

    return change


def role(name: str, **changes: Any) -> Change:
    def change(config: dict[str, Any], _: Path) -> None:
        config[f"{P}:endpoints"][0][name].update(changes)

    return change


def gpu_group(**changes: Any) -> Change:
    def change(config: dict[str, Any], _: Path) -> None:
        config[f"{P}:cluster"]["instanceGroups"][0].update(changes)

    return change


def cluster(**changes: Any) -> Change:
    def change(config: dict[str, Any], _: Path) -> None:
        config[f"{P}:cluster"].update(changes)

    return change


def existing_network(**changes: Any) -> Change:
    """The dev stack in a VPC of its own, with `changes` to that VPC's IDs."""

    def change(config: dict[str, Any], _: Path) -> None:
        subnets = {"usw2-az2": "subnet-0123456789abcdef0", "usw2-az3": "subnet-0123456789abcdef1"}
        existing = {"vpcId": "vpc-0123456789abcdef0", "privateSubnetIds": subnets, **changes}
        config[f"{P}:network"] = {
            "availabilityZoneIds": ["usw2-az2", "usw2-az3"],
            "existing": existing,
        }

    return change


def setting(key: str, value: Any) -> Change:
    def change(config: dict[str, Any], _: Path) -> None:
        config[key] = value

    return change


def hugging_face(token_config_key: str, **extra: Any) -> Change:
    def change(config: dict[str, Any], _: Path) -> None:
        config[f"{P}:endpoints"][0]["modelSource"] = {
            "huggingFace": {
                "modelId": "meta-llama/Llama-3.3-70B-Instruct",
                "tokenConfigKey": token_config_key,
            }
        }
        config.update(extra)

    return change


def cli_refusal(tmp_path: Path, capsys: pytest.CaptureFixture, change: Change) -> list[str]:
    """The lines `render` prints for the dev stack so changed, once it has exited 2 and
    written nothing."""
    config = dev_config()
    change(config, tmp_path)
    out = tmp_path / "out"
    assert main(["render", "--config-file", config_file(tmp_path, config), "--out", str(out)]) == 2
    assert not out.exists()
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.splitlines()


def cli_renders(tmp_path: Path, *changes: Change) -> bool:
    """Whether `render` renders the dev stack with each of these changes made to it (one
    render for all, when each holds on its own)."""
    config = dev_config()
    for change in changes:
        change(config, tmp_path)
    out = tmp_path / "out"
    return main(["render", "--config-file", config_file(tmp_path, config), "--out", str(out)]) == 0


def with_endpoint_access(access: dict | None) -> dict:
    """The dev stack with this cluster.endpointAccess, or none at all."""
    config = dev_config()
    cluster = config[f"{P}:cluster"]
    if access is None:
        del cluster["endpointAccess"]
    else:
        cluster["endpointAccess"] = access
    return config


def renders_each(cases: Sequence[dict[str, Any]]) -> Any:
    """The module fixture `valid_rendered`: each_rendered(cases), rendered once per module."""
    return pytest.fixture(scope="module", name="valid_rendered")(lambda: each_rendered(cases))
