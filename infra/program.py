"""The Pulumi program: what `pulumi up` runs through __main__.py, and the offline render too."""

import pulumi

from components.core.terminal_text import one_line
from infra.settings import Settings, load_settings
from infra.stack import build_stack


def main() -> Settings:
    """Build the stack; the settings it was built from go back to the offline tools."""
    settings = load_settings()
    for line in settings.warnings:
        pulumi.log.warn(one_line(line))
    build_stack(settings)
    return settings
