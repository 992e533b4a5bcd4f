"""scripts/calibration.py prints each measurement against its prediction, and the errors by
engine and GPU, fitted and held apart."""

import sys

import pytest

from scripts.calibration import main


@pytest.mark.parametrize(
    ("action", "says"),
    [
        ("table", "| nim18-llama3.3-70b-h100-fp8-tp2-5000-500-c1 | TTFT ms |"),
        ("held-apart", "| held apart A | sglang | H200 |"),
    ],
)
def test_the_tables_print_in_markdown(monkeypatch, capsys, action, says):
    monkeypatch.setattr(sys, "argv", ["calibration.py", action, "--markdown"])
    assert main() == 0
    assert says in capsys.readouterr().out
