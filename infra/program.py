"""The Pulumi program: what `pulumi up` runs through __main__.py, and the offline render too."""

from __future__ import annotations

import pulumi

from infra.settings import load_settings
from infra.stack import build_stack


def main() -> None:
    settings = load_settings()
    for line in settings.warnings:
        pulumi.log.warn(line)
    build_stack(settings)
