"""How often Python's cyclic garbage collector runs during the program and the offline commands.

The program imports over a thousand SDK modules and then registers hundreds of resources, and
almost nothing it allocates becomes garbage before it exits. With Python's default schedule
the collector runs every 700 allocations and, every hundred or so of those runs, walks every
object alive, the SDKs' classes and functions included: a quarter of a 64-endpoint render's
own work went to that. Freezing what exists on entry takes the modules imported so far out
of every later walk, and a larger first threshold makes the walks rarer.
"""

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# Allocations between young collections (Python's default is 700). Memory held by garbage
# cycles waits longer, which a command that exits within seconds can afford.
YOUNG_THRESHOLD = 10_000


# Kept: a 64-endpoint render took 3.0-3.6 s of CPU with it, 4.0-4.2 s without (2026-12-02).
@contextmanager
def few_collections() -> Iterator[None]:
    """Collect rarely inside the block; the schedule and the frozen objects are restored after."""
    thresholds = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
