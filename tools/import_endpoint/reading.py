"""What reading a manifest into an endpoint item keeps: the item, the manifest field behind
each of its keys, what no setting can write, and which parts of the spec the settings took."""

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Reading:
    """The item read from one manifest, with the manifest field behind each of its keys (to
    name the field when the stack refuses a key) and the fields no setting can write."""

    item: dict[str, Any]
    sources: dict[str, str] = field(default_factory=dict)
    problems: list[tuple[str, str]] = field(default_factory=list)
    # Keys the reading chose where the manifest says nothing, each with why.
    chosen: list[str] = field(default_factory=list)


Path = tuple[str, ...]


def spec_path(dotted: str) -> Path:
    return tuple(dotted.split("."))


def shown(path: Path) -> str:
    """A spec path as the manifest's field: `spec.` and the keys, dots and all."""
    return ".".join(("spec", *path))


def leaves(value: Any, here: Path = ()) -> list[Path]:
    """The paths of every leaf under `value` (an empty mapping is a leaf); keys may hold dots
    (`nvidia.com/gpu`), so a path is a tuple of keys."""
    if isinstance(value, dict) and value:
        return [leaf for key, child in value.items() for leaf in leaves(child, (*here, str(key)))]
    return [here]


class SpecView:
    """The manifest's spec, and the paths of it that settings have taken."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.taken: set[Path] = set()

    def at(self, path: Path) -> Any:
        value: Any = self.spec
        for key in path:
            if not isinstance(value, dict) or key not in value:
                return None
            value = value[key]
        return value

    def get(self, dotted: str) -> Any:
        return self.at(spec_path(dotted))

    def take(self, dotted: str) -> Any:
        value = self.get(dotted)
        if value is not None:
            self.taken.add(spec_path(dotted))
        return value

    def is_taken(self, leaf: Path) -> bool:
        return any(leaf[: len(t)] == t for t in self.taken)


def set_key(reading: Reading, key: str, value: Any, source: str) -> None:
    """Put `value` at the dotted item `key`, noting the manifest field it came from."""
    if value is None:
        return
    *parents, last = key.split(".")
    place = reading.item
    for parent in parents:
        place = place.setdefault(parent, {})
    place[last] = value
    reading.sources[key] = shown(spec_path(source))


def copy_key(reading: Reading, spec: SpecView, path: str, key: str) -> None:
    set_key(reading, key, spec.take(path), path)


def number(text: str | None, kind: type) -> int | float | str | None:
    if text is None:
        return None
    try:
        return kind(text)
    except ValueError:
        return text
