"""Values used twice where each must be unique: names, IDs, keys."""

from collections.abc import Hashable, Iterator, Sequence


def reuses(keys: Sequence[Hashable | None]) -> Iterator[tuple[int, int]]:
    """(index, index of its first use) of every key used again; None is no key."""
    first_index: dict[Hashable, int] = {}
    for i, key in enumerate(keys):
        if key is None:
            continue
        if key in first_index:
            yield i, first_index[key]
        first_index.setdefault(key, i)
