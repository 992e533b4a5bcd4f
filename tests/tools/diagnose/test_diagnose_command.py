"""`hyperpod-dpd diagnose` against a fake kubectl serving the API's objects and the pods'
logs: healthy logs give exit 0, and no access, no endpoint or no kubectl exit 2 with the
reason in one line. Each signature's findings are tested beside it (test_pod_signatures.py,
test_kv_signatures.py), and what is read and saved in test_bundle.py."""

import pytest

from tests.tools.diagnose.diagnosing import diagnose, served


@pytest.fixture
def kubectl(kubectl_on_path):
    """Here the command runs kubectl as a program of its own, found on PATH."""
    return kubectl_on_path


def test_healthy_roles_and_transfers_are_healthy(kubectl, capsys):
    served(kubectl)
    status, out, err = diagnose(capsys)
    assert status == 0, out + err
    assert "healthy: none of the 10 known failure signatures" in out
    assert "pd_role sender" in out and "pd_role receiver" in out
    assert "8 of 8 KV retrievals moved tokens, median 176.2 GB/s" in out
    assert "router: 22 requests, 91% disaggregated (threshold 4096)" in out


def test_no_access_is_exit_2_with_kubectls_error_in_one_line(kubectl, capsys):
    served(kubectl)
    (kubectl / "denied.txt").write_text(
        "E1205 14:00:01.000000   12 memcache.go:265] couldn't get current server API group\n"
        "error: You must be logged in to the server (Unauthorized)\n"
    )
    status, out, err = diagnose(capsys)
    assert status == 2 and out == ""
    assert err.strip().endswith("error: You must be logged in to the server (Unauthorized)")
    assert len(err.strip().splitlines()) == 1


def test_an_endpoint_that_is_not_there_is_exit_2(kubectl, capsys):
    served(kubectl)
    (kubectl / "iec.json").unlink()
    status, _, err = diagnose(capsys)
    assert status == 2 and "Error from server (NotFound)" in err


def test_without_kubectl_it_says_so(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    status, _, err = diagnose(capsys)
    assert status == 2 and "kubectl: not found on PATH" in err
