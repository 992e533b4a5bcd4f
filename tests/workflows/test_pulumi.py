"""preview.yml and deploy.yml, and the Pulumi job they share (pulumi.yml)."""

from __future__ import annotations

import subprocess

from infra.paths import ROOT
from tests.workflows.github_files import WORKFLOWS, step_named, step_using, workflow

PULUMI = WORKFLOWS / "pulumi.yml"
OIDC = {"contents": "read", "id-token": "write"}


def test_preview_runs_every_stack_on_pull_requests_from_this_repository():
    preview = workflow("preview.yml")
    assert list(preview["on"]) == ["pull_request"]
    assert preview["permissions"] == {**OIDC, "pull-requests": "write"}
    job = preview["jobs"]["preview"]
    assert job["uses"] == "./.github/workflows/pulumi.yml"
    assert job["with"] == {"command": "preview", "stack": "${{ matrix.stack }}"}
    assert job["strategy"]["matrix"]["stack"] == ["dev", "prod"]
    assert job["if"] == "github.event.pull_request.head.repo.full_name == github.repository"
    assert job["secrets"] == "inherit"
    assert "environment" not in job["with"]


def test_the_pulumi_step_previews_with_the_policy_pack_and_comments_on_the_pull_request():
    pulumi = step_using(PULUMI, "pulumi/actions")
    assert pulumi["with"] == {
        "command": "${{ inputs.command }}",
        "stack-name": "${{ inputs.stack }}",
        "work-dir": ".",
        "pulumi-version": "3.272.0",
        "cloud-url": "${{ vars.PULUMI_BACKEND_URL }}",
        "diff": True,
        "policyPacks": "policy",
        "comment-on-pr": "${{ inputs.command == 'preview' }}",
        "edit-pr-comment": True,
    }
    assert pulumi["env"] == {
        "PULUMI_ACCESS_TOKEN": "${{ secrets.PULUMI_ACCESS_TOKEN }}",
        "PULUMI_CONFIG_PASSPHRASE": "${{ secrets.PULUMI_CONFIG_PASSPHRASE }}",
    }


def test_the_pulumi_cli_is_the_version_of_the_sdk():
    pinned = [line for line in (ROOT / "requirements.txt").read_text().split() if "==" in line]
    assert "pulumi==" + step_using(PULUMI, "pulumi/actions")["with"]["pulumi-version"] in pinned


def test_the_pulumi_job_sets_up_the_venvs_and_the_chart_first():
    steps = workflow("pulumi.yml")["jobs"]["pulumi"]["steps"]
    names = [step.get("uses", step.get("name", "")).split("@")[0] for step in steps]
    assert names == [
        "actions/checkout",
        "./.github/actions/setup",
        "Read the stack's AWS region",
        "aws-actions/configure-aws-credentials",
        "pulumi/actions",
    ]
    assert step_using(PULUMI, "./.github/actions/setup")["with"] == {"chart": "true"}


def test_aws_credentials_come_through_oidc_in_the_stacks_region(tmp_path):
    credentials = step_using(PULUMI, "aws-actions/configure-aws-credentials")["with"]
    assert credentials["role-to-assume"] == "${{ secrets.AWS_ROLE_ARN }}"
    assert credentials["aws-region"] == "${{ steps.stack.outputs.aws-region }}"
    assert "aws-access-key-id" not in credentials
    # The region step, run as GitHub runs it, for the dev stack.
    output = tmp_path / "output"
    script = step_named(PULUMI, "Read the stack's AWS region")["run"]
    subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=ROOT,
        env={"STACK": "dev", "GITHUB_OUTPUT": str(output), "PATH": "/usr/bin:/bin"},
        check=True,
    )
    assert output.read_text() == "aws-region=us-west-2\n"


def test_deploy_runs_up_on_main_dev_first_then_prod_behind_the_production_environment():
    deploy = workflow("deploy.yml")
    assert deploy["on"] == {"push": {"branches": ["main"]}}
    assert deploy["permissions"] == OIDC
    dev, prod = deploy["jobs"]["dev"], deploy["jobs"]["prod"]
    assert list(deploy["jobs"]) == ["dev", "prod"]
    for job in (dev, prod):
        assert job["uses"] == "./.github/workflows/pulumi.yml"
        assert job["with"]["command"] == "up"
        assert job["secrets"] == "inherit"
    assert dev["with"] == {"command": "up", "stack": "dev", "environment": "dev"}
    assert "needs" not in dev
    assert prod["with"] == {"command": "up", "stack": "prod", "environment": "production"}
    assert prod["needs"] == "dev"


def test_two_deploys_of_one_stack_never_overlap():
    jobs = workflow("deploy.yml")["jobs"]
    for stack in ("dev", "prod"):
        assert jobs[stack]["concurrency"] == {
            "group": f"pulumi-up-{stack}",
            "cancel-in-progress": False,
        }


def test_the_job_runs_in_the_environment_its_caller_names():
    job = workflow("pulumi.yml")["jobs"]["pulumi"]
    assert job["environment"] == "${{ inputs.environment }}"
    assert workflow("pulumi.yml")["on"]["workflow_call"]["inputs"]["environment"]["default"] == ""
