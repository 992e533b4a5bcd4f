"""Template placeholders: the `<YOUR_BUCKET>` that AWS's samples leave for the reader to fill.

No AWS or host name holds '<' or '>', so the shape checks let such a value through to this one
rule, which refuses it; except on an adopted endpoint, whose live object already holds it: the
stack reproduces what runs, warning that its pods cannot reach what the value stands for.
"""

import re
from typing import Any

from components.core.findings import Finding, error, field_path, warning
from components.core.spec import BOOLEAN_TEXTS

ADOPTED_TEXTS = [text for text, value in BOOLEAN_TEXTS.items() if value]

# `<YOUR_MODEL_BUCKET>`, `<my-region>`, `<File-System-Id>`: a word or more, no spaces.
_PLACEHOLDER = re.compile(r"<[A-Za-z][A-Za-z0-9_-]{2,}>")
# Free text, which may hold anything between angle brackets; the names are elsewhere.
_FREE_TEXT = ("environmentVariables", "tags", "workerArgs", "args", "command")


def holds_placeholder(value: str) -> bool:
    return _PLACEHOLDER.search(value) is not None


# A value wrapped whole in a word processor's quotes: YAML keeps them as part of the text.
_CURLY_QUOTED = re.compile(r"\s*[\u201c\u2018\u201e\u00ab].*[\u201d\u2019\u201c\u00bb]\s*", re.S)


def _strings(value: Any, path: str, free_text: bool = False) -> list[tuple[str, str]]:
    if isinstance(value, dict):
        return [
            found
            for key, child in value.items()
            if free_text or key not in _FREE_TEXT
            for found in _strings(child, f"{path}.{key}" if path else str(key), free_text)
        ]
    if isinstance(value, list):
        return [
            found
            for i, child in enumerate(value)
            for found in _strings(child, f"{path}[{i}]", free_text)
        ]
    return [(path, value)] if isinstance(value, str) else []


def check_curly_quotes(settings: dict[str, Any]) -> list[Finding]:
    """A value pasted from a document with its curly quotes (“1.35”), which no setting, AWS
    name or variable means to hold."""
    return [
        error(
            "curly-quotes",
            path,
            f"{value!r} is wrapped in curly quotes, which YAML keeps as part of the value; "
            'write straight quotes ("...") or none',
        )
        for path, value in _strings(settings, "", free_text=True)
        if _CURLY_QUOTED.fullmatch(value)
    ]


def check_placeholders(settings: dict[str, Any]) -> list[Finding]:
    """A finding for each placeholder in the stack's settings, as written (by config key)."""
    endpoints = settings.get("endpoints")
    adopted = {
        field_path("endpoints", i)
        for i, endpoint in enumerate(endpoints if isinstance(endpoints, list) else [])
        # A switch as the stack file may write it (`"true"`, as Config.get_bool reads it).
        if isinstance(endpoint, dict)
        and (endpoint.get("adopted") is True or endpoint.get("adopted") in ADOPTED_TEXTS)
    }
    found = []
    for path, value in _strings(settings, ""):
        if not holds_placeholder(value):
            continue
        if path.split(".", 1)[0] in adopted:
            found.append(
                warning(
                    "placeholder-adopted",
                    path,
                    f"{value!r} is a template placeholder, kept as the adopted endpoint's "
                    "object has it; its pods cannot reach what it stands for until you set "
                    "the real value",
                )
            )
        else:
            found.append(
                error(
                    "placeholder",
                    path,
                    f"{value!r} is a template placeholder, which no AWS or Kubernetes name "
                    "can be; set the real value",
                )
            )
    return found
