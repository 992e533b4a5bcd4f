"""offline.yml: the tests, the infra diff of each stack and the engine's preview, as one
pull-request comment."""

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


def test_tests_and_diff_run_on_pull_requests_with_no_secrets_and_least_privilege():
    offline = workflow("offline.yml")
    assert list(offline["on"]) == ["pull_request"]
    assert offline["permissions"] == {"contents": "read"}
    # Neither the job nor the setup action it uses reads a secret or a variable.
    for document in (offline["jobs"]["test-and-diff"], load(ACTIONS / "setup" / "action.yml")):
        assert not [v for v in strings(document) if re.search(r"\b(secrets|vars)\.\w", v)]
    assert offline["jobs"]["comment"]["permissions"] == {"pull-requests": "write"}
    # A preview stopped halfway can leave a self-managed backend's stack locked.
    assert offline["concurrency"] == {
        "group": "pull-request-${{ github.event.pull_request.number }}",
        "cancel-in-progress": False,
    }


def test_the_comment_waits_for_the_previews_and_posts_whatever_they_did():
    comment = workflow("offline.yml")["jobs"]["comment"]
    assert comment["needs"] == ["test-and-diff", "preview"]
    assert comment["if"].startswith("always() && needs.test-and-diff.result == 'success'")


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
        "DIFFS": str(tmp_path / "comment"),
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


def test_changes_are_not_a_failure_and_every_stack_is_kept_for_the_comment(tmp_path):
    result = run_diff_step(tmp_path, {"dev": 1, "prod": 0})
    assert result.returncode == 0, result.stderr
    for stack in ("dev", "prod"):
        assert (tmp_path / "comment" / f"{stack}.md").read_text() == (
            f"diff of {stack} against origin/main\n"
        )
    assert (tmp_path / "summary.md").read_text() == (
        "\n### Stack dev\n\ndiff of dev against origin/main\n"
        "\n### Stack prod\n\ndiff of prod against origin/main\n"
    )
    upload = step_using(OFFLINE, "actions/upload-artifact")["with"]
    assert upload["path"] == step_named(OFFLINE, DIFF_STEP)["env"]["DIFFS"]


def test_a_diff_error_fails_the_job(tmp_path):
    result = run_diff_step(tmp_path, {"dev": 2, "prod": 0})
    assert result.returncode == 2
    assert "::error::infra diff of stack dev failed with exit status 2" in result.stdout


def post_comment(
    tmp_path, files: dict[str, str], comments: list[dict], previewed: str = "success"
) -> list:
    """What the comment step asks of the GitHub API, given the downloaded artifacts' files and
    the comments already there."""
    step = step_using(OFFLINE, "actions/github-script")
    (tmp_path / "script.js").write_text(step["with"]["script"])
    (tmp_path / "comments.json").write_text(json.dumps(comments))
    (tmp_path / "harness.cjs").write_text(GITHUB_SCRIPT)
    downloaded = tmp_path / "comment"
    downloaded.mkdir()
    for name, text in files.items():
        (downloaded / name).write_text(text)
    assert step["env"]["DIFFS"] == step_using(OFFLINE, "actions/download-artifact")["with"]["path"]
    result = subprocess.run(
        ["node", "harness.cjs", "script.js", "comments.json"],
        cwd=tmp_path,
        env={**os.environ, "DIFFS": str(downloaded), "STACKS": "dev prod", "PREVIEWED": previewed},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(result.stdout)


DIFFS = {"dev.md": "dev's diff\n", "prod.md": "prod's diff\n"}
HEADING = "## What this pull request changes in each stack\n"


def test_posts_one_comment_with_the_hidden_marker(tmp_path):
    calls = post_comment(tmp_path, DIFFS, [], previewed="skipped")
    body = f"{MARKER}\n{HEADING}\n### Stack dev\n\ndev's diff\n\n### Stack prod\n\nprod's diff\n"
    assert calls == [
        ["list", {**REPO, "issue_number": 7, "per_page": 100}],
        ["create", {**REPO, "issue_number": 7, "body": body}],
    ]


def test_the_engine_preview_goes_under_each_stacks_diff_as_text(tmp_path):
    preview = "  ~ aws:iam/role:Role  ```<b>x</b>\nResources: 1 to update\n"
    files = {**DIFFS, "preview-dev.txt": preview}
    [_, (_, params)] = post_comment(tmp_path, files, [], previewed="failure")
    body = params["body"]
    dev = body[body.index("### Stack dev") : body.index("### Stack prod")]
    assert dev.endswith(
        "dev's diff\n\n<details><summary>pulumi preview</summary>\n\n````\n"
        + preview.rstrip()
        + "\n````\n\n</details>\n\n"
    )
    # prod's preview failed: the comment says so rather than leave it out.
    assert body.endswith(
        "prod's diff\n\n`pulumi preview` did not finish: see the "
        "[run](https://github.com/octo/hyperpod-dpd/actions/runs/42).\n"
    )


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
    calls = post_comment(tmp_path, DIFFS, [*others, ours], previewed="skipped")
    assert [call[0] for call in calls[1:]] == ["update"]
    assert calls[1][1]["comment_id"] == 5


def test_a_diff_too_long_for_a_comment_is_cut_with_its_code_block_closed(tmp_path):
    long = "```diff\n" + "+ line\n" * 20000 + "```\n"
    [_, (command, params)] = post_comment(tmp_path, {**DIFFS, "dev.md": long}, [], "skipped")
    body = params["body"]
    assert command == "create"
    assert len(body) < 65536
    assert body.count("```") % 2 == 0
    assert body.endswith(
        "\n\nCut short: the whole diff is in the "
        "[run's summary](https://github.com/octo/hyperpod-dpd/actions/runs/42).\n"
    )
