"""Where the project lives on disk, for files the program and its tools read beside the code."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
