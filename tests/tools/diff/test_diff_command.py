"""`python -m infra diff` end to end, in a temporary git repository holding this project."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from infra.paths import ROOT
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


def edit_endpoint(path: Path, **changes) -> None:
    document = yaml.safe_load(path.read_text())
    document["config"]["hyperpod-dpd:endpoints"][0].update(changes)
    path.write_text(yaml.safe_dump(document, sort_keys=False))


def diff(repository: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "infra", "diff", "--base", "HEAD", *args],
        cwd=repository,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_no_changes_says_so_and_exits_0(repository, dev_stack):
    done = diff(repository)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Stack dev: no changes from HEAD.\n"


def test_a_routing_threshold_change_is_an_update_of_that_path(repository, dev_stack):
    edit_endpoint(dev_stack, routingThreshold=8192)
    done = diff(repository)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Stack dev: 1 to update (from HEAD)."
    assert (
        " ~ update   kubernetes:inference.sagemaker.aws.amazon.com/v1:InferenceEndpointConfig"
        "  default/dpd-test" in lines
    )
    assert "      spec.pdSpec.routingThreshold: 4096 → 8192" in lines
    assert "-    routingThreshold: 4096" in lines and "+    routingThreshold: 8192" in lines


def test_an_intelligent_routing_change_is_marked_as_a_replacement(repository, dev_stack):
    edit_endpoint(dev_stack, routingStrategy="session")
    done = diff(repository, "--format", "markdown")
    assert done.returncode == 1, done.stderr
    # A new generation, and the stable Service moved to it.
    assert "Stack `dev`: 1 to update, 1 to replace (from `HEAD`)." in done.stdout
    # dev's two nodes cannot hold both generations: it deletes first, an outage.
    assert "> - endpoint `default/dpd-test`: deleted, then created again" in done.stdout
    assert "`spec.intelligentRoutingSpec.routingStrategy: prefixaware → session`" in done.stdout
    assert re.search(
        r"`metadata\.name: dpd-test-g\w{5} → dpd-test-g\w{5}  \(replaces: ", done.stdout
    )
    assert "  class n_default_dpd_test changed" in done.stdout
    # The comment says what the stack's nodes cost, group by group.
    assert "| `p5-dpd` | 2 x `ml.p5.48xlarge` | on demand |" in done.stdout


def test_an_added_endpoint_is_added_with_its_manifest(repository, dev_stack):
    document = yaml.safe_load(dev_stack.read_text())
    config = document["config"]
    config["hyperpod-dpd:endpoints"].append(
        {
            **config["hyperpod-dpd:endpoints"][0],
            "name": "dpd-long",
            "endpointName": "dpd-long",
            "routingThreshold": 16000,
        }
    )
    config["hyperpod-dpd:cluster"]["instanceGroups"][0]["instanceCount"] = 4
    dev_stack.write_text(yaml.safe_dump(document, sort_keys=False))
    done = diff(repository)
    assert done.returncode == 1, done.stderr
    assert " + add      hyperpod-dpd:endpoint:InferenceEndpoint  default/dpd-long" in done.stdout
    assert (
        "+ add      kubernetes:inference.sagemaker.aws.amazon.com/v1:InferenceEndpointConfig"
        "  default/dpd-long" in done.stdout
    )
    assert "instanceGroups[0].instanceCount: 2 → 4" in done.stdout
    assert re.search(
        r"\+\+\+ b/manifests/default\.inferenceendpointconfig\.dpd-long-g[0-9a-f]{5}\.yaml",
        done.stdout,
    )


def test_a_stack_new_since_the_base_is_all_additions(repository, dev_stack):
    shutil.copy(dev_stack, repository / "Pulumi.staging.yaml")
    done = diff(repository, "--stack", "staging")
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("Stack staging: ")
    assert " to add (from HEAD)." in done.stdout.splitlines()[0]


def test_an_invalid_change_exits_2_with_its_problems(repository, dev_stack):
    edit_endpoint(dev_stack, routingThreshold=-1)
    done = diff(repository)
    assert done.returncode == 2
    assert "hyperpod-dpd:endpoints[0].routingThreshold: -1 is not allowed" in done.stderr


def test_an_unknown_base_revision_exits_2(repository, dev_stack):
    done = subprocess.run(
        [sys.executable, "-m", "infra", "diff", "--base", "no-such-ref"],
        cwd=repository,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "dev: --base 'no-such-ref': git cannot check it out here (fatal: invalid reference: "
        "no-such-ref)\n"
    )


def test_a_side_whose_code_crashes_is_one_line_not_its_traceback(tmp_path):
    (tmp_path / "infra").mkdir()
    (tmp_path / "infra" / "__main__.py").write_text("raise RuntimeError('boom')\n")
    with pytest.raises(RenderError) as failed:
        render_checkout(tmp_path, "dev", tmp_path / "Pulumi.dev.yaml", tmp_path / "out")
    assert str(failed.value) == "the render crashed: RuntimeError: boom"


@pytest.mark.parametrize("base", ["--force", "-q"])
def test_a_base_git_would_read_as_an_option_is_refused(base):
    refused = pytest.raises(RenderError, match=f"--base '{base}' is not a git revision")
    with refused, checkout_at(ROOT, base):
        pass


def test_a_stack_file_that_is_not_yaml_exits_2_naming_file_line_and_column(repository, dev_stack):
    dev_stack.write_text(dev_stack.read_text() + "  hyperpod-dpd:operator: [\n")
    done = diff(repository)
    assert done.returncode == 2
    assert f"{dev_stack}:" in done.stderr and "is not valid YAML" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_vpc_cidr_change_replaces_the_clusters_whose_subnets_it_replaces(repository, dev_stack):
    document = yaml.safe_load(dev_stack.read_text())
    document["config"]["hyperpod-dpd:network"]["vpcCidr"] = "10.1.0.0/16"
    dev_stack.write_text(yaml.safe_dump(document, sort_keys=False))
    done = diff(repository)
    assert done.returncode == 1, done.stderr
    replaced = [line for line in done.stdout.splitlines() if line.startswith("+- replace")]
    assert any("eks:index:Cluster" in line for line in replaced), done.stdout
    assert any("aws-native:sagemaker:Cluster" in line for line in replaced), done.stdout
    assert "(replaces: privateSubnetIds)" in done.stdout
    assert "(replaces: vpcConfig)" in done.stdout
    # The cluster's replacement takes its provider, and with it everything the provider manages.
    for resource in (
        "pulumi:providers:kubernetes  eks",
        "InferenceEndpointConfig  default/dpd-test",
        "kubernetes:helm.sh/v3:Release  hyperpod-dependencies",
    ):
        assert any(line.endswith(resource) for line in replaced), resource
    assert "      replaced because its provider 'eks' is replaced with the cluster it reaches" in (
        done.stdout.splitlines()
    )
    # Every add-on lives inside the cluster: deleted first, the cluster takes them with it.
    lines = done.stdout.splitlines()
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
    outages = done.stdout[done.stdout.index("Outages:") : done.stdout.index("+- replace")]
    assert outages.index("HyperPod cluster `hyperpod`") < outages.index("EKS cluster `eks`")


def test_the_pd_buffer_change_reads_in_gib(repository, dev_stack):
    edit_endpoint(dev_stack, pdBufferSize="16GiB")
    done = diff(repository)
    assert done.returncode == 1, done.stderr
    assert "      PD_BUFFER_SIZE: 8 GiB → 16 GiB" in done.stdout.splitlines()
