"""From the load to the latencies: open-loop (Poisson) arrivals at `requestsPerSecond`, or the
closed loop of `concurrency` clients that benchmarks run.

Open loop: prompts arrive at random. A decoder holds, by Little's law, the arrival rate times
how long a request decodes; prompts queue (M/D/1) behind the steps or passes that take them,
and requests wait for a decode slot when the batch is nearly full (Erlang C). The waits grow
without bound as the load nears capacity; past it there is no TTFT.

Closed loop (vLLM's `bench serve --max-concurrency`, genai-perf, AIPerf): every client sends
its first request at once, and with a fixed output length the requests of one step finish
together and come back together. So a run is a first wave, where each prompt waits behind the
prompts ahead of it, then steady rounds in which the groups that finished together arrive
together and take a step (or a pass) of their own. Schedulers that take running requests first
keep the stagger the first wave made; SGLang's, which runs waiting prompts before any decode,
makes every round a wave again. A run's figures weigh its first wave by 1 / rounds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from planner.queueing import Delay, md1_wait, quantile, slot_wait
from planner.serving import Serving

# Closed-loop requests per client when the scenario does not say (InferenceMAX's sweeps send
# 10 x concurrency); fixed-point rounds to settle a batch.
DEFAULT_ROUNDS = 10
FIXED_POINT_STEPS = 12


@dataclass(frozen=True)
class Point:
    """The figures at one load. Times in seconds; TTFT is a mixture of delays."""

    rate: float
    ttft: tuple[tuple[float, Delay], ...]
    tpot: float
    # Inter-token latency: a plain step, a step that carries prompts, and the share of those.
    itl_plain: float
    itl_mixed: float
    itl_share: float
    # TTFT's mean parts: waiting, the prefill, the KV transfer and hop (disaggregated).
    queue: float
    prefill: float
    transfer: float
    batches: tuple[float, ...]
    saturated: bool

    @property
    def ttft_mean(self) -> float:
        return sum(weight * delay.mean for weight, delay in self.ttft)

    def ttft_quantile(self, percentile: float) -> float:
        return quantile(self.ttft, percentile / 100)

    def itl_quantile(self, percentile: float) -> float:
        return self.itl_mixed if 1 - percentile / 100 < self.itl_share else self.itl_plain


def _little_batch(serving: Serving, rate: float, seconds_per_step) -> float:
    """The decode batch B = rate x decode steps x step(B) (Little's law), settled."""
    batch = 1.0
    for _ in range(FIXED_POINT_STEPS):
        batch = max(rate * serving.decode_steps * seconds_per_step(batch), 1.0)
        if batch > serving.decoder.max_batch:
            break
    return batch


def _unbounded(point: Point, capacity: float) -> Point:
    """Past capacity: the decodes run as just below it, and TTFT has no bound."""
    return replace(
        point, rate=capacity, ttft=((1.0, Delay(math.inf)),), queue=math.inf, saturated=True
    )


# A run of a known length past capacity is figured just below capacity, plus its backlog.
NEAR_CAPACITY = (0.98, 0.95, 0.9, 0.8, 0.6)


def open_loop(serving: Serving, rate: float, requests: int | None = None) -> Point:
    """Poisson arrivals at `rate`; past capacity there is no TTFT, unless the run sends
    `requests` in all: then its queue grows for as long as they arrive, and a request waits,
    on average, for half the backlog the run ends with."""
    capacity = serving.capacity()
    if rate >= capacity:
        near = _near_capacity(serving, capacity)
        if requests is None:
            return _unbounded(near, capacity)
        backlog = requests * (1 - capacity / rate)
        wait = backlog / 2 / capacity
        ttft = tuple((w, replace(d, fixed=d.fixed + wait)) for w, d in near.ttft)
        return replace(near, rate=capacity, ttft=ttft, queue=near.queue + wait, saturated=True)
    point = _open(serving, rate)
    if math.isfinite(point.ttft_mean):
        return point
    return _unbounded(_near_capacity(serving, capacity), capacity)


def _near_capacity(serving: Serving, capacity: float) -> Point:
    for share in NEAR_CAPACITY:
        point = _open(serving, share * capacity)
        if math.isfinite(point.ttft_mean):
            return point
    return point


def _open(serving: Serving, rate: float) -> Point:
    if serving.disaggregated:
        return _open_disaggregated(serving, rate)
    return _open_aggregated(serving, rate)


def _open_aggregated(serving: Serving, rate: float) -> Point:
    per_replica = rate / serving.first.replicas
    state = {}

    def step_mean(batch: float) -> float:
        prompts = serving.arriving_together(per_replica, batch)
        steps = serving.steps(batch, prompts)
        mixed_rate = per_replica / prompts * steps.chunks
        stretch = 1 - mixed_rate * steps.extra
        state.update(steps=steps, mixed_rate=mixed_rate)
        return steps.decode / stretch if stretch > 0 else math.inf

    batch = _little_batch(serving, per_replica, step_mean)
    tau = step_mean(batch)
    steps, mixed_rate = state["steps"], state["mixed_rate"]
    own = steps.chunks * steps.mixed
    # Prompts queue like a batch server's: the steps take up to `fit` of them at once, so
    # the queue grows only as the steps fill (M/D/1 at the share of that room in use).
    fit = serving.prompts_fit(batch)
    busy = per_replica * own / fit
    prompt_wait = md1_wait(busy, own)
    slot = slot_wait(serving.decoder.max_batch, batch, serving.decode_steps * tau)
    delay = Delay(own, tau, prompt_wait + slot, busy if prompt_wait >= slot else 1.0)
    return Point(
        rate,
        ((1.0, delay),),
        tau / serving.accepted_tokens,
        steps.decode / serving.accepted_tokens,
        steps.mixed / serving.accepted_tokens,
        min(mixed_rate * tau, 1.0),
        queue=tau / 2 + prompt_wait + slot,
        prefill=own,
        transfer=0.0,
        batches=(batch,),
        saturated=False,
    )


def _open_disaggregated(serving: Serving, rate: float) -> Point:
    prefill_rate = rate / serving.first.replicas
    prompts = serving.bulk(prefill_rate)
    # A pass takes up to `most_prompts`: the queue grows only as passes fill.
    busy = prefill_rate * serving.pass_seconds(prompts) / serving.most_prompts
    prompt_wait = md1_wait(busy, serving.pass_seconds(prompts))
    decode_rate = rate / serving.decoder.replicas
    batch = _little_batch(serving, decode_rate, serving.decode_step)
    step = serving.decode_step(batch)
    slot = slot_wait(serving.decoder.max_batch, batch, serving.decode_steps * step)
    handed = serving.handed_over(prompts)
    delay = Delay(handed + step, step, prompt_wait + slot, busy if prompt_wait >= slot else 1.0)
    itl = step / serving.accepted_tokens
    return Point(
        rate,
        ((1.0, delay),),
        itl,
        itl,
        itl,
        0.0,
        queue=prompt_wait + slot + step / 2,
        prefill=serving.prefill(prompts),
        transfer=handed - serving.prefill(prompts),
        batches=(prompts, batch),
        saturated=False,
    )


@dataclass(frozen=True)
class _Round:
    """One round of a closed loop: each client's TTFT, its decode, and the steps' shape."""

    ttft: tuple[tuple[float, Delay], ...]
    tpot: float
    itl_plain: float
    itl_mixed: float
    itl_share: float
    prefill: float
    transfer: float
    batches: tuple[float, ...]

    @property
    def ttft_mean(self) -> float:
        return sum(weight * delay.mean for weight, delay in self.ttft)


def _wave(serving: Serving, clients: float) -> _Round:
    """Every client's prompt at once: each waits behind the prompts ahead of it."""
    accepted = serving.accepted_tokens
    if serving.disaggregated:
        per_prefill = clients / serving.first.replicas
        prompts = min(per_prefill, serving.most_prompts)
        passes = math.ceil(per_prefill / prompts)
        batch = min(clients / serving.decoder.replicas, serving.decoder.max_batch)
        step = serving.decode_step(batch)
        handed = serving.handed_over(prompts)
        spread = (passes - 1) * serving.pass_seconds(prompts)
        itl = step / accepted
        delay = Delay(handed + step, spread)
        prefill = serving.prefill(prompts)
        return _Round(((1.0, delay),), itl, itl, itl, 0.0, prefill, handed - prefill,
                      (prompts, batch))  # fmt: skip
    per_replica = min(clients / serving.first.replicas, serving.decoder.max_batch)
    prompts = min(per_replica, serving.prompts_fit(0))
    groups = math.ceil(per_replica / prompts)
    if serving.mixes:
        # Later groups prefill in steps that also decode the earlier ones.
        steps = serving.steps(per_replica / 2, prompts)
        group = steps.chunks * steps.mixed
        extra = (groups - 1) / 2 * steps.chunks * steps.extra
    else:
        # Decodes wait until the whole wave has prefilled.
        steps = serving.steps(per_replica, prompts)
        group = serving.prefill_alone(prompts)
        extra = (groups - 1) / 2 * group
    plain = serving.decode_step(per_replica)
    decoding = max(serving.decode_steps, 1e-9)
    tpot = (plain + extra / decoding) / accepted
    share = min(groups * steps.chunks / decoding, 1.0)
    delay = Delay(group, (groups - 1) * group)
    return _Round(((1.0, delay),), tpot, plain / accepted, steps.mixed / accepted, share,
                  group, 0.0, (per_replica,))  # fmt: skip


def _steady(serving: Serving, clients: float) -> _Round:
    """Rounds after the first: the groups the first wave made arrive together, each taking a
    step (or a pass) of its own, and wait when they collide."""
    accepted = serving.accepted_tokens
    if serving.disaggregated:
        per_prefill = clients / serving.first.replicas
        prompts = min(per_prefill, serving.most_prompts)
        groups = per_prefill / prompts
        service = serving.pass_seconds(prompts)
        per_decoder = clients / serving.decoder.replicas
        batch = min(per_decoder, serving.decoder.max_batch)
        cycle = service + serving.decode_steps * serving.decode_step(batch)
        for _ in range(FIXED_POINT_STEPS // 2):
            step = serving.decode_step(batch)
            decoding = serving.decode_steps * step
            wait = min(md1_wait(min(groups * service / cycle, 0.99), service),
                       (groups - 1) * service)  # fmt: skip
            ttft = wait + serving.handed_over(prompts) + 1.5 * step
            cycle = ttft + decoding
            batch = min(per_decoder * decoding / cycle, serving.decoder.max_batch)
        handed = serving.handed_over(prompts)
        delay = Delay(handed + step, step, wait, min(groups * service / cycle, 1.0))
        prefill = serving.prefill(prompts)
        itl = step / accepted
        return _Round(((1.0, delay),), itl, itl, itl, 0.0, prefill, handed - prefill,
                      (prompts, batch))  # fmt: skip
    per_replica = clients / serving.first.replicas
    batch = min(per_replica, serving.decoder.max_batch)
    cycle = None
    for _ in range(FIXED_POINT_STEPS // 2):
        prompts = min(per_replica, serving.prompts_fit(batch))
        steps = serving.steps(batch, prompts)
        groups = per_replica / prompts
        decoding = max(serving.decode_steps, 1e-9)
        share = min(groups * steps.chunks / decoding, 1.0)
        tau = steps.decode + share * steps.extra
        service = steps.chunks * steps.mixed
        cycle = cycle or service + decoding * tau
        busy = min(groups * service / cycle, 0.99)
        wait = min(md1_wait(busy, service), (groups - 1) * service)
        # A returning client's prompt arrives just after the next step has started, unless
        # no one else is decoding.
        missed = tau if per_replica > prompts else 0.0
        ttft = missed + wait + service
        cycle = ttft + decoding * tau
        batch = min(per_replica * decoding * tau / cycle, serving.decoder.max_batch)
    delay = Delay(missed + service, 0.0, wait, busy)
    return _Round(((1.0, delay),), tau / accepted, steps.decode / accepted,
                  steps.mixed / accepted, share, service, 0.0, (batch,))  # fmt: skip


def closed_loop(
    serving: Serving, clients: int, requests: int | None, steady_state: bool = False
) -> Point:
    """`clients` each sending its next request when the last one ends, `requests` in all;
    `steady_state`: the first wave left out of the figures."""
    requests = requests or DEFAULT_ROUNDS * clients
    clients = min(clients, requests)
    rounds = requests / clients
    wave = _wave(serving, clients)
    waves_persist = not serving.disaggregated and not serving.mixes
    steady = wave if waves_persist else _steady(serving, clients)
    first = 1.0 if waves_persist else 0.0 if steady_state else 1 / rounds
    decoding = serving.decode_steps * serving.accepted_tokens
    cycles = [round_.ttft_mean + decoding * round_.tpot for round_ in (wave, steady)]
    rate = requests / (first * rounds * cycles[0] + (1 - first) * rounds * cycles[1])
    capacity = serving.capacity()
    limited = rate > capacity
    extra = 0.0
    if limited:
        # More clients than the layout keeps busy: the rest wait (Little's law).
        extra = clients / capacity - (first * cycles[0] + (1 - first) * cycles[1])
        rate = capacity
    ttft = _weighted([(first, wave), (1 - first, steady)], extra)

    def mean(attribute: str) -> float:
        return first * getattr(wave, attribute) + (1 - first) * getattr(steady, attribute)

    return Point(
        rate,
        ttft,
        mean("tpot"),
        steady.itl_plain,
        max(wave.itl_mixed, steady.itl_mixed),
        mean("itl_share"),
        queue=max(sum(w * d.mean for w, d in ttft) - mean("prefill") - mean("transfer"), 0.0),
        prefill=mean("prefill"),
        transfer=mean("transfer"),
        batches=steady.batches,
        saturated=limited,
    )


def _weighted(
    rounds: Sequence[tuple[float, _Round]], extra: float
) -> tuple[tuple[float, Delay], ...]:
    return tuple(
        (weight * part_weight, replace(delay, fixed=delay.fixed + max(extra, 0.0)))
        for weight, round_ in rounds
        if weight > 0
        for part_weight, delay in round_.ttft
    )
