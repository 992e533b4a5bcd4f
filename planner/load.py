"""From the load to the latencies: open-loop (Poisson) arrivals at `requestsPerSecond`, or the
closed loop of `concurrency` clients that benchmarks run.

Open loop: prompts arrive at random. A decoder holds, by Little's law, the arrival rate times
how long a request decodes; prompts queue (M/D/1) behind the steps or passes that take them,
and requests wait for a decode slot when the batch is nearly full (Erlang C). The waits grow
without bound as the load nears capacity; past it there is no TTFT.

Closed loop (vLLM's `bench serve --max-concurrency`, genai-perf, AIPerf): every client sends
its first request at once, so a run starts with a wave in which each prompt waits behind the
prompts ahead of it. After it, the clients send as their requests end: lengths that vary, and
the stagger the wave leaves, spread the returns, so the rounds after are arrivals at the rate
the clients sustain (the open loop's model at the rate where N clients each wait a TTFT and a
decode per request). Only SGLang's scheduler, which runs waiting prompts before any decode, on
requests of one fixed length, keeps every round a wave. A run's figures weigh its first wave
by 1 / rounds.
"""

import math
from dataclasses import dataclass, replace

from planner.phases import first_token_floor
from planner.queueing import Delay, md1_wait, quantile, slot_wait
from planner.serving import Serving

# Closed-loop requests per client when the scenario does not say (InferenceMAX's sweeps send
# 10 x concurrency); fixed-point rounds to settle a batch or a rate.
DEFAULT_ROUNDS = 10
FIXED_POINT_STEPS = 12
# A run of a known length past capacity is figured just below capacity, plus its backlog.
NEAR_CAPACITY = (0.98, 0.95, 0.9, 0.8, 0.6)
# Halvings that find a closed loop's steady rate, to within 1/4096 of the capacity.
BISECTIONS = 12


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
    # TTFT's mean parts: waiting, the prefill, the KV transfer and hand-off (disaggregated).
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

    def cycle(self, serving: Serving) -> float:
        """A closed-loop client's time per request: its TTFT, then its decode."""
        return self.ttft_mean + serving.decode_steps * serving.accepted_tokens * self.tpot


def _ttft(serving: Serving, before: float, prefill: float, step: float, **queue: float) -> Delay:
    """A TTFT of `before` + `prefill` + the step under way (uniform over `step`) + a queue,
    above the first token's floor, the prefill spread as the prompts' lengths are."""
    spread = serving.spread * prefill
    fixed = before + prefill - spread + first_token_floor(serving.deployment)
    return Delay(fixed, step + 2 * spread, **queue)


def _little_batch(serving: Serving, rate: float, seconds_per_step) -> float:
    """The decode batch B = rate x decode steps x step(B) (Little's law), settled."""
    batch, most = 1.0, serving.decoder.max_batch
    if serving.decode_steps <= 0:
        return batch
    for _ in range(FIXED_POINT_STEPS):
        found = min(max(rate * serving.decode_steps * seconds_per_step(batch), 1.0), 2.0 * most)
        if found > most or abs(found - batch) < 0.005 * batch:
            return found
        batch = found
    return batch


def _unbounded(point: Point, capacity: float) -> Point:
    """Past capacity: the decodes run as just below it, and TTFT has no bound."""
    return replace(
        point, rate=capacity, ttft=((1.0, Delay(math.inf)),), queue=math.inf, saturated=True
    )


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


def _open(serving: Serving, rate: float, alone: bool = False) -> Point:
    """Prompts the decoders prefill themselves follow the aggregated model, the others the
    prefill role's; the decode steps are the decoders' either way. `alone`: one client, whose
    prompt finds no step under way."""
    share = serving.local_share
    if share >= 1:
        point = _open_aggregated(serving, rate, alone)
        if serving.disaggregated:
            # The prefill role gets nothing; the decoders serve as an aggregated layout would.
            return replace(point, batches=(0.0, *point.batches))
        return point
    if share <= 0:
        return _open_disaggregated(serving, rate)
    local = _open_aggregated(serving, rate, alone)
    remote = _open_disaggregated(serving, rate, local.tpot * serving.accepted_tokens)
    return replace(
        remote,
        ttft=((share, local.ttft[0][1]), (1 - share, remote.ttft[0][1])),
        itl_plain=local.itl_plain,
        itl_mixed=local.itl_mixed,
        itl_share=local.itl_share,
        queue=share * local.queue + (1 - share) * remote.queue,
        prefill=share * local.prefill + (1 - share) * remote.prefill,
        transfer=(1 - share) * remote.transfer,
    )


def _open_aggregated(serving: Serving, rate: float, alone: bool = False) -> Point:
    per_replica = rate / serving.decoder.replicas
    prompt_rate = per_replica * serving.local_share
    state = {}

    def step_mean(batch: float) -> float:
        prompts = serving.arriving_together(prompt_rate, batch)
        steps = serving.steps(batch, prompts)
        mixed_rate = prompt_rate / prompts * steps.chunks
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
    busy = prompt_rate * own / fit
    prompt_wait = 0.0 if alone else md1_wait(busy, own)
    slot = 0.0 if alone else slot_wait(serving.decoder.max_batch, batch, serving.decode_steps * tau)
    waited = busy if prompt_wait >= slot else 1.0
    delay = _ttft(serving, 0.0, own, 0.0 if alone else tau, queue=prompt_wait + slot, busy=waited)
    return Point(
        rate,
        ((1.0, delay),),
        tau / serving.accepted_tokens,
        steps.decode / serving.accepted_tokens,
        steps.mixed / serving.accepted_tokens,
        min(mixed_rate * tau, 1.0),
        queue=(0.0 if alone else tau / 2) + prompt_wait + slot,
        prefill=own + first_token_floor(serving.deployment),
        transfer=0.0,
        batches=(batch,),
        saturated=False,
    )


def prefill_queue(serving: Serving, rate: float) -> tuple[float, float, float]:
    """The prompts a prefill pass takes at `rate` in all, the share of the passes' room in
    use, and a prompt's mean wait for a pass (M/D/1 at that share: the queue grows only as
    passes fill)."""
    prefill_rate = rate * (1 - serving.local_share) / serving.first.replicas
    prompts = serving.bulk(prefill_rate)
    busy = prefill_rate * serving.pass_seconds(prompts) / serving.most_prompts
    return prompts, busy, md1_wait(busy, serving.pass_seconds(prompts))


def _open_disaggregated(serving: Serving, rate: float, step: float | None = None) -> Point:
    """The prefill role's path; `step` is the decoders' mean step when they also prefill."""
    prompts, busy, prompt_wait = prefill_queue(serving, rate)
    decode_rate = rate / serving.decoder.replicas
    batch = _little_batch(serving, decode_rate, lambda b: step or serving.decode_step(b))
    step = step or serving.decode_step(batch)
    slot = slot_wait(serving.decoder.max_batch, batch, serving.decode_steps * step)
    handed = serving.handed_over(prompts)
    steps = serving.handoff.decode_steps - 0.5
    waited = busy if prompt_wait >= slot else 1.0
    delay = _ttft(
        serving, handed - serving.prefill(prompts) + steps * step, serving.prefill(prompts), step,
        queue=prompt_wait + slot, busy=waited,
    )  # fmt: skip
    itl = step / serving.accepted_tokens
    return Point(
        rate,
        ((1.0, delay),),
        itl,
        itl,
        itl,
        0.0,
        queue=prompt_wait + slot + step / 2,
        prefill=serving.prefill(prompts) + first_token_floor(serving.deployment),
        transfer=handed - serving.prefill(prompts) + steps * step,
        batches=(prompts, batch),
        saturated=False,
    )


def _wave(serving: Serving, clients: float) -> Point:
    """Every client's prompt at once: each waits behind the prompts ahead of it."""
    accepted, floor = serving.accepted_tokens, first_token_floor(serving.deployment)
    if serving.local_share < 0.5:
        per_prefill = clients / serving.first.replicas
        prompts = min(per_prefill, serving.most_prompts)
        passes = math.ceil(per_prefill / prompts)
        batch = min(clients / serving.decoder.replicas, serving.decoder.max_batch)
        step = serving.decode_step(batch)
        prefill = serving.prefill(prompts)
        spread = (passes - 1) * serving.pass_seconds(prompts)
        handoff = (
            serving.handed_over(prompts) - prefill + (serving.handoff.decode_steps - 0.5) * step
        )
        delay = _ttft(serving, handoff, prefill, step + spread)
        itl = step / accepted
        return Point(0.0, ((1.0, delay),), itl, itl, itl, 0.0, 0.0, prefill + floor, handoff,
                     (prompts, batch), False)  # fmt: skip
    per_replica = min(clients / serving.decoder.replicas, serving.decoder.max_batch)
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
    delay = _ttft(serving, 0.0, group, (groups - 1) * group)
    batches = (0.0, per_replica) if serving.disaggregated else (per_replica,)
    return Point(0.0, ((1.0, delay),), tpot, plain / accepted, steps.mixed / accepted, share,
                 0.0, group + floor, 0.0, batches, False)  # fmt: skip


def _steady(serving: Serving, clients: float, capacity: float) -> Point:
    """The rounds after the wave: arrivals at the rate N clients sustain, each client waiting
    a TTFT and a decode per request (found by bisection), at most just below the capacity."""
    alone = clients <= 1
    low, high = 0.0, capacity * NEAR_CAPACITY[0]
    point = _open(serving, high, alone)
    if math.isfinite(point.ttft_mean) and high * point.cycle(serving) <= clients:
        return point
    for _ in range(BISECTIONS):
        middle = (low + high) / 2
        point = _open(serving, middle, alone)
        if math.isfinite(point.ttft_mean) and middle * point.cycle(serving) < clients:
            low = middle
        else:
            high = middle
    return _open(serving, low, alone)


def closed_loop(
    serving: Serving, clients: int, requests: int | None, steady_state: bool = False
) -> Point:
    """`clients` each sending its next request when the last one ends, `requests` in all;
    `steady_state`: the first wave left out of the figures."""
    requests = requests or DEFAULT_ROUNDS * clients
    clients = min(clients, requests)
    rounds = requests / clients
    capacity = serving.capacity()
    wave = _wave(serving, clients)
    waves_persist = not serving.mixes and serving.local_share > 0 and serving.spread == 0
    steady = wave if waves_persist else _steady(serving, clients, capacity)
    first = 1.0 if waves_persist else 0.0 if steady_state else 1 / rounds
    cycles = [round_.cycle(serving) for round_ in (wave, steady)]
    rate = requests / (first * rounds * cycles[0] + (1 - first) * rounds * cycles[1])
    limited = rate > capacity
    extra = 0.0
    if limited:
        # More clients than the layout keeps busy: the rest wait (Little's law).
        extra = clients / capacity - (first * cycles[0] + (1 - first) * cycles[1])
        rate = capacity
    ttft = tuple(
        (weight * part_weight, replace(delay, fixed=delay.fixed + max(extra, 0.0)))
        for weight, round_ in ((first, wave), (1 - first, steady))
        if weight > 0
        for part_weight, delay in round_.ttft
    )

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
