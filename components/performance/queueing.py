"""From load to waits: M/D/1 for a queue of prompts, and the batch a decoder holds.

Open loop (`requestsPerSecond`): requests arrive at random (Poisson) whatever the latency.
A prefill server takes a deterministic time per prompt, so its queue is M/D/1:
Wq = rho S / (2 (1 - rho)). A decoder holds, by Little's law, the arrival rate times how long
a request decodes.
"""

from __future__ import annotations

from collections.abc import Callable

# Past this utilization an open-loop queue grows without bound; the prediction reports the
# figures at the edge and says it is saturated.
SATURATED_UTILIZATION = 0.9
BISECTION_STEPS = 50


def md1_wait(utilization: float, service_seconds: float) -> float:
    """Mean wait in an M/D/1 queue at `utilization` (held below saturation)."""
    utilization = min(utilization, SATURATED_UTILIZATION)
    return utilization * service_seconds / (2 * (1 - utilization))


def decode_batch(
    arrival_rate: float,
    decode_tokens: int,
    token_seconds: Callable[[float], float],
    max_batch: float,
) -> float | None:
    """The batch B with B = rate x tokens x TPOT(B), the decoder's steady state; None when even
    `max_batch` can't keep up (the decoder is saturated)."""

    def excess(batch: float) -> float:
        return arrival_rate * decode_tokens * token_seconds(batch) - batch

    if excess(max_batch) > 0:
        return None
    low, high = 0.0, max_batch
    for _ in range(BISECTION_STEPS):
        middle = (low + high) / 2
        if excess(middle) > 0:
            low = middle
        else:
            high = middle
    return high


def bisect_increasing(
    function: Callable[[float], float], target: float, low: float, high: float
) -> float:
    """x in [low, high] with function(x) = target, for an increasing function."""
    for _ in range(BISECTION_STEPS):
        middle = (low + high) / 2
        if function(middle) < target:
            low = middle
        else:
            high = middle
    return (low + high) / 2
