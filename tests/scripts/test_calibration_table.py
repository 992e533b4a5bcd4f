"""scripts/calibration_table.py prints each measurement against its prediction."""

import sys

from scripts.calibration_table import main


def test_the_table_has_a_row_per_measured_figure_and_the_median(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["calibration_table.py", "--markdown"])
    assert main() == 0
    out = capsys.readouterr().out
    assert out.startswith("| case | metric | measured | predicted | error | x off |")
    assert "| nim18-llama3.3-70b-h100-fp8-tp2-5000-500-c1 | TTFT ms |" in out
    assert "median |error| over TTFT and TPOT " in out and "within 2x" in out
