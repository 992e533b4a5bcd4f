"""What `bench` tells the user to run: commands that paste as they read, whatever `--out` says."""

import pytest

from components.endpoint.spec import EndpointSpec
from tests.pasted import HOSTILE, expected_calls, paste
from tests.support import dev_endpoint
from tools.bench.bench_command import instructions


@pytest.mark.parametrize("value", HOSTILE)
def test_the_printed_commands_run_only_kubectl_and_python(tmp_path, value):
    spec = EndpointSpec.model_validate(dev_endpoint())
    lines = instructions("dev", spec, [], f"job{value}.yaml")
    commands = [line.strip() for line in lines if line.startswith(("  kubectl", "  python"))]
    pasted = paste(commands, tmp_path)
    assert pasted.created == ["dpd-test-bench.log"]
    assert pasted.calls == expected_calls(commands)
    apply, *_, delete = pasted.calls
    assert apply == ["kubectl", "apply", "-f", f"job{value}.yaml"]
    assert delete == ["kubectl", "delete", "-f", f"job{value}.yaml"]
