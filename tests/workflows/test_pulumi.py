"""The previews of offline.yml and the deploys of deploy.yml, and the Pulumi job they share
(pulumi.yml)."""

import subprocess

from infra.paths import ROOT
from tests.workflows.github_files import WORKFLOWS, step_named, step_using, workflow

PULUMI = WORKFLOWS / "pulumi.yml"
OIDC = {"contents": "read", "id-token": "write"}


def test_preview_runs_every_stack_on_pull_requests_from_this_repository():
    preview = workflow("offline.yml")["jobs"]["preview"]
    assert preview["uses"] == "./.github/workflows/pulumi.yml"
    assert preview["with"] == {"command": "preview", "stack": "${{ matrix.stack }}"}
    assert preview["strategy"]["matrix"]["stack"] == ["dev", "prod"]
    assert preview["if"] == "github.event.pull_request.head.repo.full_name == github.repository"
    assert preview["secrets"] == "inherit"
    assert preview["permissions"] == OIDC


def test_the_pulumi_step_previews_with_the_policy_pack_and_keeps_the_preview_for_the_comment(
    tmp_path,
):
    pulumi = step_using(PULUMI, "pulumi/actions")
    assert pulumi["with"] == {
        "command": "${{ inputs.command }}",
        "stack-name": "${{ inputs.stack }}",
        "work-dir": ".",
        "pulumi-version": "3.272.0",
        "cloud-url": "${{ vars.PULUMI_BACKEND_URL }}",
        "diff": True,
        "policyPacks": "policy",
    }
    assert pulumi["env"] == {
        "PULUMI_ACCESS_TOKEN": "${{ secrets.PULUMI_ACCESS_TOKEN }}",
        "PULUMI_CONFIG_PASSPHRASE": "${{ secrets.PULUMI_CONFIG_PASSPHRASE }}",
    }
    # Its output goes to the artifact the pull-request comment reads, as text.
    keep = step_named(PULUMI, "Keep the preview for the pull-request comment")
    assert keep["env"]["PREVIEW"] == "${{ steps.pulumi.outputs.output }}"
    subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", keep["run"]],
        env={"PREVIEW": "~ update $(whoami) `x`", "STACK": "dev", "RUNNER_TEMP": str(tmp_path)},
        check=True,
    )
    assert (tmp_path / "preview-dev.txt").read_text() == "~ update $(whoami) `x`\n"
    upload = step_using(PULUMI, "actions/upload-artifact")
    assert upload["with"]["path"] == "${{ runner.temp }}/preview-${{ inputs.stack }}.txt"
    assert keep["if"] == upload["if"] == "inputs.command == 'preview'"


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
        "Keep the preview for the pull-request comment",
        "actions/upload-artifact",
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
