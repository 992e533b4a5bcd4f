"""`routingThreshold`: the shortest prompt worth sending through the prefill role.

A prompt below the threshold goes straight to a decoder (the operator's router), which
prefills it in a chunk of its next step: that step grows by the prompt's compute, and each of
the requests decoding there waits that much longer for its token. Sent the disaggregated way,
the prompt instead waits in the prefill role's queue, is prefilled, its KV moves over EFA and
the router hops to a decoder, which the running decodes never notice (the decode steps a
hand-off waits are paid either way). So a prompt of L tokens gains by the prefill role from the
L where

    (decode batch + 1) x what L tokens add to a step  >=  prefill queue + prefill(L)
                                                          + KV transfer(L) + hop

Short prompts fit in what a decode step's compute leaves idle while it reads the weights, so
they cost the decodes little; long ones stall every running request for their whole compute.
"""

from dataclasses import dataclass
from pathlib import Path

from planner.load import prefill_queue
from planner.phases import chunk_seconds, kv_transfer_seconds, prefill_seconds
from planner.predict import Prediction, serving_of
from planner.scenario import Scenario

# Candidates: LMCache's 256-token chunks up to 128 Ki tokens.
THRESHOLD_STEP = 256
THRESHOLD_MAX = 131_072


@dataclass(frozen=True)
class Threshold:
    tokens: int
    batch: float
    # At the threshold: what the prompt costs the decodes locally, and what the prefill path
    # costs it, in seconds.
    local: float
    remote: float
    queue: float

    def explain(self) -> str:
        return (
            f"a {self.tokens:,}-token prompt prefilled on a decoder lengthens one step of its "
            f"{self.batch:.0f} running requests by {self.local / (self.batch + 1) * 1e3:.1f} ms "
            f"each ({self.local * 1e3:,.0f} ms of waiting in all), against "
            f"{self.remote * 1e3:,.0f} ms through the prefill role (queue "
            f"{self.queue * 1e3:,.0f} ms, prefill, KV transfer and hop): the first length, in "
            "LMCache's 256-token chunks, at which the trip costs less"
        )


def routing_threshold(
    scenario: Scenario, base_dir: Path | None, prediction: Prediction
) -> Threshold | None:
    """The threshold for the disaggregated `scenario` at `prediction`'s load; None: no
    prompt up to 128 Ki tokens gains by the prefill role."""
    serving = serving_of(scenario, base_dir)
    deployment = serving.deployment
    prefill, decode = serving.first.parallelism, serving.decoder.parallelism
    batch = prediction.roles[1].batch
    # The queue a prompt joins is the one the workload's typical prompts build, as the
    # prediction has it: a short one waits behind them as long as any other.
    queue = prefill_queue(serving, prediction.requests_per_second)[2]
    hop = serving.handoff.fixed_s
    for tokens in range(THRESHOLD_STEP, THRESHOLD_MAX + 1, THRESHOLD_STEP):
        local = (batch + 1) * chunk_seconds(deployment, decode, tokens, tokens)
        remote = (
            queue
            + prefill_seconds(deployment, prefill, tokens)
            + kv_transfer_seconds(deployment, prefill, decode, tokens)
            + hop
        )
        if remote <= local:
            return Threshold(tokens, batch, local, remote, queue)
    return None
