"""scripts/calibration.py prints each measurement against its prediction, and the errors by
engine and GPU, fitted and held apart."""

import sys

from planner.calibration_cases import load_cases
from scripts import calibration


def test_the_table_has_a_row_per_measured_figure(monkeypatch, capsys):
    (nim,) = [c for c in load_cases() if c["id"] == "nim18-llama3.3-70b-h100-fp8-tp2-5000-500-c1"]
    monkeypatch.setattr(calibration, "load_cases", lambda: [nim])
    monkeypatch.setattr(sys, "argv", ["calibration.py", "table", "--markdown"])
    assert calibration.main() == 0
    out = capsys.readouterr().out
    assert out.startswith("| case | metric | measured | predicted | error | x off |")
    assert f"| {nim['id']} | ttftMs | 406.8 |" in out


def test_the_errors_are_by_engine_and_gpu_fitted_and_held_apart(monkeypatch, capsys):
    monkeypatch.setattr(sys, "argv", ["calibration.py", "held-apart", "--markdown"])
    assert calibration.main() == 0
    out = capsys.readouterr().out
    for row in ("| fitted | all | all |", "| held apart A | sglang | H200 |", "| held apart B |"):
        assert row in out
