"""Property paths as Pulumi writes them (`instanceGroups[0].instanceCount`, `a["b.c"]`, `*`),
and which paths a pattern covers, as the engine matches `ignoreChanges` and `replaceOnChanges`
(pulumi/pulumi `sdk/go/common/resource/property_path.go`: `ParsePropertyPath`, `Contains`).
"""

import re

_PART = re.compile(r'\["((?:[^"\\]|\\.)*)"\]|\[([^\]]*)\]|([^.\[\]]+)')


def parse(path: str) -> list[str]:
    """The parts of `path`: names, list indices and quoted keys, each as text."""
    return [quoted or bracketed or name for quoted, bracketed, name in _PART.findall(path)]


def covers(pattern: str, path: str) -> bool:
    """Whether `path` lies at or under `pattern`; `*` stands for any one part."""
    wanted, found = parse(pattern), parse(path)
    if len(wanted) > len(found):
        return False
    return all(w in ("*", f) for w, f in zip(wanted, found, strict=False))


def overlaps(pattern: str, path: str) -> bool:
    """Whether a change at `path` may change something `pattern` covers: one lies under the
    other (an unknown `vpcConfig` may change `vpcConfig.subnets`)."""
    return covers(pattern, path) or covers(path, pattern)
