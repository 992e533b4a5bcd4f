"""`hyperpod-dpd diff`: the report of what changes between two renders, and the command end
to end in a temporary git repository holding this project.

The reports compare renders made in this process: the dev stack as committed, once for the
module, against each test's change. The command's own paths (git, the stack files, the exit
codes) run as a user runs them in that repository: the command in this process, and each side's
render, where a test asks for it, in a process of its own from the repository's code.
"""

import contextlib
import io
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from infra.paths import ROOT
from tests.support import config_file, dev_config
from tools import cli
from tools.diff import diff_command
from tools.diff.diff_command import print_diff
from tools.diff.render_at import RenderError, checkout_at, render_checkout

GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
}


def git(repository: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repository), *args],
        env=GIT_ENV,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


@pytest.fixture(scope="module")
def repository(tmp_path_factory) -> Path:
    """A git repository with this project's files committed as they are now."""
    repository = tmp_path_factory.mktemp("project")
    files = git(ROOT, "ls-files", "--cached", "--others", "--exclude-standard").splitlines()
    for name in files:
        if (ROOT / name).is_file():
            (repository / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, repository / name)
    git(repository, "init", "--quiet")
    git(repository, "add", "--all")
    git(repository, "commit", "--quiet", "-m", "base")
    return repository


@pytest.fixture
def dev_stack(repository):
    """The repository's dev stack file, restored after the test changes it."""
    path = repository / "Pulumi.dev.yaml"
    original = path.read_text()
    yield path
    path.write_text(original)
    git(repository, "checkout", "--quiet", "--", ".")
    git(repository, "clean", "--quiet", "-fd")


@pytest.fixture
def in_repository(repository, monkeypatch) -> Path:
    """The repository as the project `infra diff` compares: its revisions are checked out and
    its code renders each side, as when the command runs from a checkout of it."""
    monkeypatch.setattr(diff_command, "ROOT", repository)
    return repository


def diff(capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    """`infra diff --base HEAD` with these arguments: its exit status, stdout and stderr."""
    status = cli.main(["diff", "--base", "HEAD", *args])
    out, err = capsys.readouterr()
    return status, out, err


def render_into(out: Path, config: dict[str, Any], folder: Path) -> None:
    """`hyperpod-dpd render --stack dev` of `config`, in this process, into `out`."""
    path = config_file(folder, config)
    assert cli.main(["render", "--stack", "dev", "--config-file", path, "--out", str(out)]) == 0


@pytest.fixture(scope="module")
def base_render(tmp_path_factory) -> Path:
    """The dev stack as committed, rendered once for every report."""
    folder = tmp_path_factory.mktemp("base")
    render_into(folder / "out", dev_config(), folder)
    return folder / "out"


Report = Callable[..., tuple[int, str]]


@pytest.fixture
def report(base_render, tmp_path, capsys) -> Report:
    """The exit status and the report of `infra diff --base HEAD` once the dev stack's config
    is `head`: the base's render shared, the head's made for the test."""

    def compared(head: dict[str, Any], markdown: bool = False) -> tuple[int, str]:
        render_into(tmp_path / "head", head, tmp_path)
        capsys.readouterr()
        status = print_diff("dev", "HEAD", base_render, tmp_path / "head", markdown)
        return status, capsys.readouterr().out

    return compared


def with_endpoint(**changes: Any) -> dict[str, Any]:
    """The dev stack with these keys of its first endpoint changed."""
    config = dev_config()
    config["hyperpod-dpd:endpoints"][0].update(changes)
    return config


def test_no_changes_says_so_and_exits_0(report):
    status, out = report(dev_config())
    assert status == 0
    assert out == "Stack dev: no changes from HEAD.\n"


def test_a_routing_threshold_change_is_an_update_of_that_path(report):
    status, out = report(with_endpoint(routingThreshold=8192))
    assert status == 1
    lines = out.splitlines()
    assert lines[0] == "Stack dev: 1 to update (from HEAD)."
    assert (
        " ~ update   kubernetes:inference.sagemaker.aws.amazon.com/v1:InferenceEndpointConfig"
        "  default/dpd-test" in lines
    )
    assert "      spec.pdSpec.routingThreshold: 4096 → 8192" in lines
    assert "-    routingThreshold: 4096" in lines and "+    routingThreshold: 8192" in lines


def test_a_routing_change_is_a_short_comment_with_its_few_lines_and_figures_before_after(report):
    status, out = report(with_endpoint(routingStrategy="roundrobin"), markdown=True)
    assert status == 1
    # dev keeps its SageMaker name: replaced under it, deleting first, an outage.
    assert "Stack `dev`: 1 to replace (from `HEAD`)." in out
    assert "> - endpoint `default/dpd-test`: deleted, then created again" in out
    assert (
        "`spec.intelligentRoutingSpec.routingStrategy: prefixaware → roundrobin  (replaces: "
        "spec.intelligentRoutingSpec)`" in out
    )
    # The manifest against the deployed one: the lines that change, not two files.
    assert "-    routingStrategy: prefixaware\n+    routingStrategy: roundrobin" in out
    assert "+++ /dev/null" not in out and "--- /dev/null" not in out
    # TTFT and cost, before → after; no graph, since the components are the same.
    assert re.search(r"\| `dpd-test` \| [\d,]+ → [\d,]+ \|.* \| ≥ \$[\d.]+ → ≥ \$[\d.]+ \|", out)
    assert "Nodes an hour: ≥ $110.08 → ≥ $110.08." in out
    assert "mermaid" not in out
    assert len(out.splitlines()) <= 80


def test_the_graph_is_drawn_when_the_components_change(report):
    config = dev_config()
    config["hyperpod-dpd:endpoints"] = []
    status, out = report(config, markdown=True)
    assert status == 1
    assert "```mermaid" in out and "n_default_dpd_test" not in out


def test_an_added_endpoint_is_added_with_its_manifest(report):
    config = dev_config()
    config["hyperpod-dpd:endpoints"].append(
        {
            **config["hyperpod-dpd:endpoints"][0],
            "name": "dpd-long",
            "endpointName": "dpd-long",
            "routingThreshold": 16000,
        }
    )
    config["hyperpod-dpd:cluster"]["instanceGroups"][0]["instanceCount"] = 4
    status, out = report(config)
    assert status == 1
    assert " + add      hyperpod-dpd:endpoint:InferenceEndpoint  default/dpd-long" in out
    assert (
        "+ add      kubernetes:inference.sagemaker.aws.amazon.com/v1:InferenceEndpointConfig"
        "  default/dpd-long" in out
    )
    assert "instanceGroups[0].instanceCount: 2 → 4" in out
    assert "--- /dev/null\n+++ b/InferenceEndpointConfig/default/dpd-long\n" in out


def render_here(rendered: list[Path], in_process: Callable[[Path], bool] = lambda _: True):
    """`render_checkout`, in this process from this checkout's code (which the repository
    holds) for each checkout `in_process` picks, recording each checkout it renders; a side's
    render in a process of its own is the --account test's."""

    def here(checkout: Path, stack: str, config_file: Path, out: Path, account_id=None) -> None:
        rendered.append(checkout)
        if not in_process(checkout):
            render_checkout(checkout, stack, config_file, out, account_id)
            return
        args = ["render", "--stack", stack, "--config-file", str(config_file), "--out", str(out)]
        with contextlib.redirect_stdout(io.StringIO()):
            assert cli.main([*args, *(["--account", account_id] if account_id else [])]) == 0

    return here


def test_a_stack_new_since_the_base_is_all_additions(in_repository, dev_stack, capsys, monkeypatch):
    staging = in_repository / "Pulumi.staging.yaml"
    shutil.copy(dev_stack, staging)
    rendered: list[Path] = []
    monkeypatch.setattr(diff_command, "render_checkout", render_here(rendered))
    status, out, err = diff(capsys, "--stack", "staging", "--config-file", str(staging))
    # The head alone renders: the base has no staging stack.
    assert rendered == [in_repository]
    assert status == 1, err
    assert out.startswith("Stack staging: ")
    assert " to add (from HEAD)." in out.splitlines()[0]


def refused_before_git(monkeypatch, capsys, *args: str) -> str:
    """What `infra diff` prints to stderr as it exits 2, before git or a render runs."""

    def no_diff(*_args: Any, **_kwargs: Any) -> int:
        raise AssertionError("the comparison ran")

    monkeypatch.setattr(cli, "run_diff", no_diff)
    assert cli.main(["diff", "--base", "HEAD", *args]) == 2
    return capsys.readouterr().err


def test_an_invalid_change_exits_2_with_its_problems(tmp_path, monkeypatch, capsys):
    path = config_file(tmp_path, with_endpoint(routingThreshold=-1))
    err = refused_before_git(monkeypatch, capsys, "--stack", "dev", "--config-file", path)
    assert "hyperpod-dpd:endpoints[0].routingThreshold: -1 is not allowed" in err


SHARED_CLUSTER = "examples/Pulumi.shared-cluster.yaml"


def test_with_account_both_sides_answer_as_that_account(in_repository, capsys, monkeypatch):
    """An existing-cluster stack with ARNs of its own account compares: the base's render in a
    process of its own from the base's checkout, as the command runs it, and the head's here."""
    rendered: list[Path] = []
    here = render_here(rendered, in_process=lambda checkout: checkout == in_repository)
    monkeypatch.setattr(diff_command, "render_checkout", here)
    status, out, err = diff(
        capsys, "--stack", "shared-cluster", "--config-file", str(in_repository / SHARED_CLUSTER),
        "--account", "111122223333",
    )  # fmt: skip
    assert status == 0, err
    assert out == "Stack shared-cluster: no changes from HEAD.\n"
    assert rendered[0] == in_repository and rendered[1] != in_repository


def test_without_account_the_stack_is_refused_for_its_account(monkeypatch, capsys):
    example = str(ROOT / SHARED_CLUSTER)
    err = refused_before_git(
        monkeypatch, capsys, "--stack", "shared-cluster", "--config-file", example
    )
    assert "is in account 111122223333" in err


def test_an_unknown_base_revision_exits_2(in_repository, dev_stack, capsys):
    status = cli.main(["diff", "--base", "no-such-ref", "--config-file", str(dev_stack)])
    assert status == 2
    assert capsys.readouterr().err == (
        "dev: --base 'no-such-ref': git cannot check it out here (fatal: invalid reference: "
        "no-such-ref)\n"
    )


def test_a_side_whose_code_crashes_is_one_line_not_its_traceback(tmp_path):
    (tmp_path / "infra").mkdir()
    # A package, as in every checkout: the base's own code runs, not the installed tree's.
    (tmp_path / "infra" / "__init__.py").write_text("")
    (tmp_path / "infra" / "__main__.py").write_text("raise RuntimeError('boom')\n")
    with pytest.raises(RenderError) as failed:
        render_checkout(tmp_path, "dev", tmp_path / "Pulumi.dev.yaml", tmp_path / "out")
    assert str(failed.value) == "the render crashed: RuntimeError: boom"


@pytest.mark.parametrize("base", ["--force", "-q"])
def test_a_base_git_would_read_as_an_option_is_refused(base):
    refused = pytest.raises(RenderError, match=f"--base '{base}' is not a git revision")
    with refused, checkout_at(ROOT, base):
        pass


def test_a_stack_file_that_is_not_yaml_exits_2_naming_file_line_and_column(tmp_path, capsys):
    stack = tmp_path / "Pulumi.dev.yaml"
    stack.write_text((ROOT / "Pulumi.dev.yaml").read_text() + "  hyperpod-dpd:operator: [\n")
    status = cli.main(["diff", "--base", "HEAD", "--stack", "dev", "--config-file", str(stack)])
    assert status == 2
    err = capsys.readouterr().err
    assert f"{stack}:" in err and "is not valid YAML" in err
    assert "Traceback" not in err


def test_a_vpc_cidr_change_replaces_the_clusters_whose_subnets_it_replaces(report):
    config = dev_config()
    config["hyperpod-dpd:network"]["vpcCidr"] = "10.1.0.0/16"
    status, out = report(config)
    assert status == 1
    replaced = [line for line in out.splitlines() if line.startswith("+- replace")]
    assert any("eks:index:Cluster" in line for line in replaced), out
    assert any("aws-native:sagemaker:Cluster" in line for line in replaced), out
    assert "(replaces: privateSubnetIds)" in out
    assert "(replaces: vpcConfig)" in out
    # The cluster's replacement takes its provider, and with it everything the provider manages.
    for resource in (
        "pulumi:providers:kubernetes  eks",
        "InferenceEndpointConfig  default/dpd-test",
        "kubernetes:helm.sh/v3:Release  hyperpod-dependencies",
    ):
        assert any(line.endswith(resource) for line in replaced), resource
    assert "      replaced because its provider 'eks' is replaced with the cluster it reaches" in (
        out.splitlines()
    )
    # Every add-on lives inside the cluster: deleted first, the cluster takes them with it.
    lines = out.splitlines()
    for addon in (
        "eks-pod-identity-agent",
        "node-addons-coredns",
        "observability",
        "inference-operator",
        "inference-operator-aws-fsx-csi-driver",
        "inference-operator-aws-mountpoint-s3-csi-driver",
        "inference-operator-cert-manager",
        "inference-operator-metrics-server",
    ):
        line = lines.index(f"+- replace  aws:eks/addon:Addon  {addon}")
        assert lines[line + 1] == (
            "      replaced because clusterName comes from 'eks', which is deleted before it is "
            "replaced (replaces: clusterName)"
        ), addon
    # The outages come before the list, the HyperPod cluster's first.
    outages = out[out.index("Outages:") : out.index("+- replace")]
    assert outages.index("HyperPod cluster `hyperpod`") < outages.index("EKS cluster `eks`")


def test_the_pd_buffer_change_reads_in_gib(report):
    status, out = report(with_endpoint(pdBufferSize="16GiB"))
    assert status == 1
    assert (
        "      PD_BUFFER_SIZE: 8 GiB → 16 GiB  (replaces: spec.worker.environmentVariables)"
        in out.splitlines()
    )


def test_a_group_and_its_endpoint_in_a_listed_az_replace_nothing(report):
    # Growth never touches the network: no subnet, NAT gateway or cluster is replaced.
    config = dev_config()
    config["hyperpod-dpd:cluster"]["instanceGroups"].append(
        {
            "name": "g6e",
            "instanceType": "ml.g6e.12xlarge",
            "instanceCount": 1,
            "availabilityZoneId": "usw2-az3",
        }
    )
    config["hyperpod-dpd:endpoints"].append(
        {
            "name": "small",
            "namespace": "default",
            "modelName": "Llama-3.1-8B-Instruct",
            "modelSource": {"s3": {"prefix": "Llama-3.1-8B-Instruct"}},
            "instanceType": "ml.g6e.12xlarge",
            "tensorParallelSize": 4,
            "maxModelLen": 8192,
            "serving": {"replicas": 1, "gpus": 4},
        }
    )
    status, out = report(config)
    assert status == 1
    assert "replace" not in out and "Outages" not in out, out
    assert "vpcConfig.subnets" in out and "(ignored: ignoreChanges keeps the deployed value)" in out


def test_an_az_added_adds_its_subnets_and_replaces_nothing(report):
    config = dev_config()
    config["hyperpod-dpd:network"]["availabilityZoneIds"].append("usw2-az1")
    status, out = report(config)
    assert status == 1
    assert "replace" not in out and "Outages" not in out, out
    assert " + add      aws:ec2/subnet:Subnet  network-private-usw2-az1" in out
