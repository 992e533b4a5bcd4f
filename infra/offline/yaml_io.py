"""YAML in and out for the offline tools, through libyaml when PyYAML was built with it.

libyaml parses and emits the same documents as PyYAML's pure-Python code, several times
faster; a render reads every endpoint of the stack file and writes every manifest, so this is
most of what YAML costs it. Only the safe loader and dumper are used: plain data, no tags.
"""

from __future__ import annotations

from typing import Any

import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def load(text: str) -> Any:
    try:
        return yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError:
        # libyaml words its errors its own way; PyYAML's parser raises the error users see.
        return yaml.safe_load(text)


def dump(value: Any) -> str:
    """Keys in the order given, block style, as `yaml.safe_dump(value, sort_keys=False)`."""
    return yaml.dump(value, Dumper=_DUMPER, sort_keys=False)
