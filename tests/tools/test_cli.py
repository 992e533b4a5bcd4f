"""The command line itself, as a shell runs it."""

import subprocess
import sys

from infra.paths import ROOT


def test_a_reader_that_stops_early_ends_the_command_without_a_traceback():
    process = subprocess.Popen(
        [sys.executable, "-m", "infra", "size", "--stack", "dev"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    # Closed long before the command has loaded its modules, so its first print meets a
    # closed pipe.
    process.stdout.close()
    stderr = process.stderr.read().decode()
    process.wait(timeout=60)
    assert "Traceback" not in stderr
    assert process.returncode == 1
