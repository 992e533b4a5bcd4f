"""What `bench` tells the user to run, commands that paste as they read whatever `--out` says,
and the file `--out` writes, never over one of the user's."""

import pytest

from components.endpoint.spec import EndpointSpec
from tests.pasted import HOSTILE, expected_calls, paste
from tests.support import dev_endpoint
from tests.tools.bench.bench_job import bench
from tools.bench.bench_command import JOB_FILE_MARKER, instructions


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


def _users_file(tmp_path):
    (tmp_path / "notes.md").write_text("my notes\n")
    return tmp_path / "notes.md"


def _loop(tmp_path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    return tmp_path / "a" / "job.yaml"


OUT_REFUSED = {
    "the user's notes": (_users_file, "exists, and the tools did not write it"),
    "the stack file": (lambda tmp: tmp / "Pulumi.test.yaml", "exists, and the tools did not"),
    "a directory": (lambda tmp: tmp, "is a directory, not a file"),
    "a loop of links": (_loop, "is inside a loop of symbolic links"),
}


@pytest.mark.parametrize("case", OUT_REFUSED)
def test_out_never_replaces_a_file_bench_did_not_write(tmp_path, capsys, case):
    make, said = OUT_REFUSED[case]
    flags = ("--endpoint", "dpd-test", "--account-id", "111122223333")
    out = make(tmp_path)
    status, _, err = bench(tmp_path, capsys, None, *flags, "--out", str(out))
    assert (status, err) == (2, f"--out: {out}: {said}" + err.split(said, 1)[1])
    assert not out.is_file() or "kind: Job" not in out.read_text()


def test_out_replaces_the_job_file_it_wrote(tmp_path, capsys):
    flags = ("--endpoint", "dpd-test", "--account-id", "111122223333")
    out = tmp_path / "job.yaml"
    for _ in range(2):
        status, _, err = bench(tmp_path, capsys, None, *flags, "--out", str(out))
        assert status == 0, err
    assert out.read_text().startswith(JOB_FILE_MARKER) and "kind: Job" in out.read_text()
