"""The command line itself, as a shell runs it."""

import json
import os
import pty
import subprocess
import sys

import pytest

from infra.paths import ROOT
from tests.support import HYPERPOD_DPD, config_file, dev_config
from tools import cli

PRIVATE_SUBNET = {
    "urn": "urn:pulumi:dev::hyperpod-dpd::hyperpod-dpd:network:Network$aws:ec2/subnet:Subnet::"
    "network-private-usw2-az2",
    "type": "aws:ec2/subnet:Subnet",
    "id": "subnet-private-usw2-az2",
    "inputs": {"availabilityZoneId": "usw2-az2", "cidrBlock": "10.0.0.0/21"},
}


def test_a_reader_that_stops_early_ends_the_command_without_a_traceback(tmp_path):
    # A command that prints without rendering: the pins of a state holding one subnet.
    state = tmp_path / "state.json"
    state.write_text(json.dumps({"deployment": {"resources": [PRIVATE_SUBNET]}}))
    process = subprocess.Popen(
        [HYPERPOD_DPD, "pin-network", "--stack", "dev", "--state", str(state)],
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


def test_every_line_a_command_prints_goes_through_printable(monkeypatch, capsys):
    def command(_args):
        print("ok\x1b[1A\x1b[2KStack dev: no changes\r")
        print("\u202eevil", file=sys.stderr)
        return 0

    monkeypatch.setattr(cli, "chart", command)
    assert cli.main(["chart"]) == 0
    out, err = capsys.readouterr()
    assert out == "ok\\x1b[1A\\x1b[2KStack dev: no changes\\r\n"
    assert err == "\\u202eevil\n"


def test_argparse_errors_naming_a_value_go_through_printable_too(capsys):
    with pytest.raises(SystemExit):
        cli.main(["render", "--stack", "dev", "--format\x1b[2K"])
    assert "--format\\x1b[2K" in capsys.readouterr().err


def test_the_real_command_line_prints_a_hostile_key_spelt_out(tmp_path):
    config = dev_config()
    config["hyperpod-dpd:endpoints"][0]["\x1b[1A\x1b[2K\u202eworkerArgs"] = []
    # Through the former command, piped: a script reading its output gets the command's alone,
    # with no word of the move (test_python_m_infra_...).
    done = subprocess.run(
        [sys.executable, "-m", "infra", "size", "--config-file", config_file(tmp_path, config)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith(
        "hyperpod-dpd:endpoints[0].\\x1b[1A\\x1b[2K\\u202eworkerArgs: is not a known setting"
    )
    assert "\x1b" not in done.stderr + done.stdout and "\u202e" not in done.stderr
    assert "is now" not in done.stderr


def test_python_m_infra_still_runs_the_command_and_names_the_new_one_at_a_terminal():
    reader, terminal = pty.openpty()
    done = subprocess.run(
        [sys.executable, "-m", "infra", "render", "--stack", ".."],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=terminal,
        check=False,
    )
    os.close(terminal)
    said = os.read(reader, 4096).decode()
    os.close(reader)
    assert done.returncode == 2
    first, *rest = said.splitlines()
    assert first.startswith("`python -m infra` is now `.venv/bin/hyperpod-dpd`")
    assert "'..' is not a stack name" in rest[-1]
    # Piped, it says nothing of the move: test_the_real_command_line_prints_a_hostile_key_....


@pytest.mark.parametrize("name", sorted(cli.subcommands(cli._parser())))
def test_every_command_shows_an_example_that_parses(name):
    parser = cli._parser()
    command = cli.subcommands(parser)[name]
    example = cli.EXAMPLES[name]
    assert command.format_help().endswith(f"example:\n  {example}\n")
    argv = example.split()[1:]
    assert " ".join(argv).startswith(name)
    parser.parse_args(argv)


def test_options_written_before_bench_results_hold():
    args = cli._parser().parse_args(
        ["bench", "--stack", "prod", "--endpoint", "e", "results", "--result", "r.log"]
    )
    assert (args.stack, args.endpoint, args.action) == ("prod", "e", "results")
    args = cli._parser().parse_args(["bench", "results", "--stack", "prod", "--result", "r.log"])
    assert args.stack == "prod"
