"""The dev stack, changed as a careless or hostile user would change it, through the whole
program: for the rules across settings that only the program runs (tests/infra), and the
command line, which must refuse in one line naming the key, with no traceback, and write
nothing. A rule on plain values is tested on plain values, in the module of its concept.

- `refusal(changes, key)`: the one problem about `key` in `dev_with(changes)`;
- a `Change` (`endpoint(...)`, `env(...)`, `setting(...)`) edits the config mapping, and
  `cli_refusal` runs `hyperpod-dpd render` on it.
"""

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.support import P, config_file, dev_config, dev_with, problem_for, problems
from tools.cli import main


def refusal(changes: dict[str, Any], key: str) -> str:
    return problem_for(f"{P}:{key}", problems(dev_with(changes)))


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
