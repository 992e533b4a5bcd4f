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


def test_a_console_that_cannot_show_a_character_gets_a_stand_in_not_a_traceback():
    # What `diff` prints (an arrow between old and new) on a Windows console's cp1252.
    script = (
        "import sys\n"
        "from tools import cli\n"
        "cli.main = lambda: print('pdBufferSize: 8GiB → 16GiB') or 0\n"
        "sys.exit(cli.run())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        env={"PYTHONIOENCODING": "cp1252", "PATH": ""},
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == b"pdBufferSize: 8GiB ? 16GiB\n"
