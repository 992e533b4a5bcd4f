"""Waits and their distributions: M/D/1 for a queue of prompts, Erlang's C for requests
waiting for a decode slot, and the percentiles of a latency made of a fixed part, a uniform
part and a queue.

Open loop (`requestsPerSecond`): requests arrive at random (Poisson) whatever the latency. A
prefill server takes a deterministic time per pass, so its queue is M/D/1:
Wq = rho S / (2 (1 - rho)), which grows without bound as rho nears 1 (no clamp: the figure is
continuous up to saturation, and past it there is none). A decoder's batch is a pool of
`max_batch` slots, each held for a request's whole decode: when the pool is nearly full a
request waits for a slot, M/M/c's Erlang C halved for deterministic holding times (the
Allen-Cunneen approximation with no variance in service).

A waiting time's tail is taken as exponential beyond an atom at zero (P(W > 0) = rho), the
shape of M/M/1 with the M/D/1 mean: Kingman's heavy-traffic approximation.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

QUANTILE_STEPS = 48


def md1_wait(utilization: float, service_seconds: float) -> float:
    """Mean wait in an M/D/1 queue at `utilization`; infinite at 1 and beyond."""
    if utilization >= 1:
        return math.inf
    return max(utilization, 0.0) * service_seconds / (2 * (1 - utilization))


def slot_wait(slots: float, busy_slots: float, holding_seconds: float) -> float:
    """Mean wait for one of `slots` decode slots when `busy_slots` are held on average, each
    for `holding_seconds` (M/D/c by Erlang C, halved); infinite when the pool is full."""
    servers = max(int(slots), 1)
    if busy_slots >= servers:
        return math.inf
    if busy_slots <= 0:
        return 0.0
    # Erlang B by its recurrence, then C from B: stable for thousands of servers.
    blocking = 1.0
    for k in range(1, servers + 1):
        blocking = busy_slots * blocking / (k + busy_slots * blocking)
    waiting = blocking / (1 - (busy_slots / servers) * (1 - blocking))
    return 0.5 * waiting * holding_seconds / (servers - busy_slots)


@dataclass(frozen=True)
class Delay:
    """A latency: `fixed`, plus a uniform part over [0, `spread`], plus a queue wait that is
    zero with probability 1 - `busy` and otherwise exponential, with mean `queue` overall."""

    fixed: float
    spread: float = 0.0
    queue: float = 0.0
    busy: float = 0.0

    @property
    def mean(self) -> float:
        return self.fixed + self.spread / 2 + self.queue

    def cdf(self, t: float) -> float:
        x = t - self.fixed
        if x < 0:
            return 0.0
        uniform = 1.0 if self.spread <= 0 else min(x / self.spread, 1.0)
        if self.queue <= 0 or self.busy <= 0:
            return uniform
        busy = min(self.busy, 1.0)
        rate = busy / self.queue
        if self.spread <= 0:
            waited = 1 - math.exp(-rate * x)
        else:
            m = min(x, self.spread)
            waited = (m - (math.exp(-rate * (x - m)) - math.exp(-rate * x)) / rate) / self.spread
        return (1 - busy) * uniform + busy * waited

    def upper(self) -> float:
        """A time past nearly all of the distribution."""
        tail = 0.0 if self.queue <= 0 or self.busy <= 0 else 40 * self.queue / self.busy
        return self.fixed + self.spread + tail


def quantile(parts: Sequence[tuple[float, Delay]], probability: float) -> float:
    """The `probability` quantile of a mixture of delays, each with its weight."""
    if any(not math.isfinite(delay.mean) for _, delay in parts):
        return math.inf
    low, high = 0.0, max(delay.upper() for _, delay in parts)
    for _ in range(QUANTILE_STEPS):
        middle = (low + high) / 2
        if sum(weight * delay.cdf(middle) for weight, delay in parts) < probability:
            low = middle
        else:
            high = middle
    return high
