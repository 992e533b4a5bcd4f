"""offline.yml: the tests and the infra diff of each stack, as one pull-request comment."""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from tests.workflows.github_files import (
    ACTIONS,
    WORKFLOWS,
    load,
    step_named,
    step_using,
    workflow,
)

OFFLINE = WORKFLOWS / "offline.yml"
DIFF_STEP = "infra diff against the base branch"

# Runs the comment step's script as actions/github-script does (an async function body given
# `require`, `github` and `context`) against a stand-in for the GitHub API.
GITHUB_SCRIPT = """\
const { readFileSync } = require("node:fs");
const [scriptFile, commentsFile] = process.argv.slice(2);
const calls = [];
const github = {
  paginate: async (method, params) => {
    method(params);
    return JSON.parse(readFileSync(commentsFile, "utf8"));
  },
  rest: {
    issues: {
      listComments: (params) => calls.push(["list", params]),
      createComment: async (params) => calls.push(["create", params]),
      updateComment: async (params) => calls.push(["update", params]),
    },
  },
};
const context = {
  repo: { owner: "octo", repo: "hyperpod-dpd" },
  issue: { number: 7 },
  serverUrl: "https://github.com",
  runId: 42,
};
const AsyncFunction = (async () => {}).constructor;
new AsyncFunction("require", "github", "context", readFileSync(scriptFile, "utf8"))(
  require, github, context,
).then(() => console.log(JSON.stringify(calls)));
"""
MARKER = "<!-- hyperpod-dpd:infra-diff -->"
REPO = {"owner": "octo", "repo": "hyperpod-dpd"}


def strings(value: Any) -> Iterator[str]:
    """Every key and string value in a YAML document, where any expression would be."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, str):
        yield value


def test_runs_on_pull_requests_with_no_secrets_and_least_privilege():
    offline = workflow("offline.yml")
    assert list(offline["on"]) == ["pull_request"]
    assert offline["permissions"] == {"contents": "read", "pull-requests": "write"}
    # Neither the workflow nor the setup action it uses reads a secret or a variable.
    for path in (OFFLINE, ACTIONS / "setup" / "action.yml"):
        found = [v for v in strings(load(path)) if re.search(r"\b(secrets|vars)\.\w", v)]
        assert not found, path.name
    assert offline["concurrency"] == {
        "group": "offline-${{ github.event.pull_request.number }}",
        "cancel-in-progress": True,
    }


def test_checks_out_the_history_and_runs_the_readme_test_command():
    assert step_using(OFFLINE, "actions/checkout")["with"]["fetch-depth"] == 0
    assert step_named(OFFLINE, "make test")["run"] == "make test"


def test_diffs_every_stack_against_the_base_branch_as_markdown():
    assert workflow("offline.yml")["env"]["STACKS"] == "dev prod"
    script = step_named(OFFLINE, DIFF_STEP)["run"]
    assert (
        '.venv/bin/hyperpod-dpd diff --base "origin/$BASE_REF" --stack "$stack" \\\n'
        "    --format markdown"
    ) in script
    assert step_named(OFFLINE, DIFF_STEP)["env"]["BASE_REF"] == "${{ github.base_ref }}"


def run_diff_step(tmp_path, statuses: dict[str, int]) -> subprocess.CompletedProcess[str]:
    """The diff step, as GitHub runs it, with `infra diff` exiting as `statuses` says."""
    python = tmp_path / "project" / ".venv" / "bin" / "hyperpod-dpd"
    python.parent.mkdir(parents=True)
    python.write_text(
        "#!/bin/sh\n"
        "# hyperpod-dpd diff --base REF --stack STACK --format markdown\n"
        'echo "diff of $5 against $3"\n'
        f"case $5 in {' '.join(f'{s}) exit {c};;' for s, c in statuses.items())} esac\n"
    )
    python.chmod(0o755)
    env = {
        "PATH": os.environ["PATH"],
        "STACKS": " ".join(statuses),
        "BASE_REF": "main",
        "RUNNER_TEMP": str(tmp_path),
        "DIFF_FILE": str(tmp_path / "infra-diff.md"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
    }
    script = step_named(OFFLINE, DIFF_STEP)["run"]
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=python.parents[2],
        env=env,
        capture_output=True,
        text=True,
    )


def test_changes_are_not_a_failure_and_every_stack_is_in_the_comment(tmp_path):
    result = run_diff_step(tmp_path, {"dev": 1, "prod": 0})
    assert result.returncode == 0, result.stderr
    diff = (tmp_path / "infra-diff.md").read_text()
    assert diff == (
        "## What this pull request changes in each stack\n"
        "\n### Stack dev\n\ndiff of dev against origin/main\n"
        "\n### Stack prod\n\ndiff of prod against origin/main\n"
    )
    assert (tmp_path / "summary.md").read_text() == diff


def test_a_diff_error_fails_the_job(tmp_path):
    result = run_diff_step(tmp_path, {"dev": 2, "prod": 0})
    assert result.returncode == 2
    assert "::error::infra diff of stack dev failed with exit status 2" in result.stdout


def post_comment(tmp_path, diff: str, comments: list[dict]) -> list:
    """What the comment step asks of the GitHub API, given the comments already there."""
    step = step_using(OFFLINE, "actions/github-script")
    (tmp_path / "script.js").write_text(step["with"]["script"])
    (tmp_path / "comments.json").write_text(json.dumps(comments))
    (tmp_path / "harness.cjs").write_text(GITHUB_SCRIPT)
    diff_file = tmp_path / "infra-diff.md"
    diff_file.write_text(diff)
    assert step["env"]["DIFF_FILE"] == "${{ runner.temp }}/infra-diff.md"
    result = subprocess.run(
        ["node", "harness.cjs", "script.js", "comments.json"],
        cwd=tmp_path,
        env={**os.environ, "DIFF_FILE": str(diff_file)},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout)


def test_posts_one_comment_with_the_hidden_marker(tmp_path):
    calls = post_comment(tmp_path, "## the diff\n", [])
    assert calls == [
        ["list", {**REPO, "issue_number": 7, "per_page": 100}],
        ["create", {**REPO, "issue_number": 7, "body": f"{MARKER}\n## the diff\n"}],
    ]


@pytest.mark.parametrize(
    "others",
    [
        [],
        # A person quoting the marker does not make the comment ours.
        [{"id": 3, "user": {"login": "someone"}, "body": f"see {MARKER}"}],
    ],
)
def test_edits_its_own_comment_on_later_pushes(tmp_path, others):
    ours = {"id": 5, "user": {"login": "github-actions[bot]"}, "body": f"{MARKER}\nold"}
    calls = post_comment(tmp_path, "new\n", [*others, ours])
    assert calls[1:] == [["update", {**REPO, "comment_id": 5, "body": f"{MARKER}\nnew\n"}]]


def test_a_diff_too_long_for_a_comment_is_cut_with_its_code_block_closed(tmp_path):
    diff = "## the diff\n```diff\n" + "+ line\n" * 20000 + "```\n"
    [_, (command, params)] = post_comment(tmp_path, diff, [])
    body = params["body"]
    assert command == "create"
    assert len(body) < 65536
    assert body.count("```") % 2 == 0
    assert body.endswith(
        "\n\nCut short: the whole diff is in the "
        "[run's summary](https://github.com/octo/hyperpod-dpd/actions/runs/42).\n"
    )
