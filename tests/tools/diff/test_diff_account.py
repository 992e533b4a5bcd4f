"""`diff --account`: both sides render as the user's account, so an existing-cluster stack with
ARNs of its own compares."""

from infra.paths import ROOT
from tests.tools.diff.test_diff_command import (  # noqa: F401 (a fixture)
    diff,
    refused_before_git,
    repository,
)

EXAMPLE = "examples/Pulumi.shared-cluster.yaml"


def test_both_sides_answer_as_the_account_given(repository):  # noqa: F811
    done = diff(
        repository, "--stack", "shared-cluster", "--config-file", EXAMPLE,
        "--account", "111122223333",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Stack shared-cluster: no changes from HEAD.\n"


def test_without_it_the_stack_is_refused_for_its_account(monkeypatch, capsys):
    example = str(ROOT / EXAMPLE)
    err = refused_before_git(
        monkeypatch, capsys, "--stack", "shared-cluster", "--config-file", example
    )
    assert "is in account 111122223333" in err
