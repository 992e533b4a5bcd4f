"""`--account`: the offline tools answer as the user's own AWS account, so a stack whose ARNs
are in that account (an existing cluster's) renders, sizes and plans."""

import json
import re

import pytest

from infra.paths import ROOT
from tools.cli import main

EXAMPLE = str(ROOT / "examples" / "Pulumi.shared-cluster.yaml")
ACCOUNT = "111122223333"
ARN_ACCOUNT = re.compile(r"arn:aws[a-z-]*:[a-z0-9-]+:[a-z0-9-]*:(\d{12}):")


def test_the_shared_cluster_example_renders_as_its_account_with_every_arn_in_it(tmp_path):
    out = tmp_path / "out"
    command = ["render", "--stack", "shared-cluster", "--config-file", EXAMPLE, "--out", str(out)]
    assert main([*command, "--account", ACCOUNT]) == 0
    resources = (out / "resources.json").read_text()
    accounts = set(ARN_ACCOUNT.findall(resources))
    assert accounts == {ACCOUNT}
    buckets = [r for r in json.loads(resources) if r["type"] == "aws:s3/bucket:Bucket"]
    assert {r["inputs"]["bucket"].rsplit("-", 1)[1] for r in buckets} == {ACCOUNT}


def test_without_it_the_example_is_refused_for_its_account(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["render", "--config-file", EXAMPLE, "--out", str(out)]) == 2
    assert "is in account 111122223333" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("command", [["size"], ["plan"], ["destroy-order"]])
def test_the_other_stack_commands_take_it_too(command):
    assert main([*command, "--config-file", EXAMPLE, "--account", ACCOUNT]) == 0


@pytest.mark.parametrize("value", ["12345678901", "1111-2222-3333", "me"])
def test_an_account_id_is_twelve_digits(value, capsys):
    with pytest.raises(SystemExit) as exited:
        main(["render", "--account", value])
    assert exited.value.code == 2
    assert "is not an AWS account ID; it is 12 digits" in capsys.readouterr().err
