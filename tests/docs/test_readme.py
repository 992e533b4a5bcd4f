"""The README's commands: ones the shell takes, setting real keys, as the stack exports them."""

import re

import pytest

from infra.next_steps import next_steps
from infra.paths import ROOT
from tests.docs.test_configuration import settings_keys
from tests.infra.test_next_steps import DEV
from tests.support import shellcheck_findings

README = (ROOT / "README.md").read_text()
SHELL_BLOCKS = re.findall(r"```sh\n(.*?)```", README, re.S)


def test_every_shell_block_passes_shellcheck():
    assert shellcheck_findings(SHELL_BLOCKS) == ""


@pytest.mark.parametrize(
    "key", sorted(set(re.findall(r"pulumi config set --path '([^']+)'", README)))
)
def test_every_key_the_readme_sets_is_a_setting(key):
    assert re.sub(r"\[\d+\]", "", key) in settings_keys()


def test_the_readme_runs_the_commands_the_dev_stack_exports():
    steps = next_steps(cluster="hyperpod-dpd-dev", region="us-west-2", endpoints=[DEV])
    endpoint = steps["endpoints"]["default/dpd-test"]
    login, download = endpoint["uploadWeights"][1:3]
    # One line per command: continuation lines joined, trailing comments dropped.
    lines = re.sub(r" \\\n\s*", " ", "\n".join(SHELL_BLOCKS)).splitlines()
    readme_commands = {line.split("   #")[0].strip() for line in lines}
    for command in (steps["kubeconfig"], login, download, *endpoint["waitUntilReady"]):
        assert command in readme_commands
