"""A resolved layout's replicas as functions of their load: the steps a decoding replica runs,
the passes a prefill replica runs, the KV transfer between them, and what the layout serves at
most.

A decoding replica runs steps. In an aggregated replica some steps also carry prompts: with
vLLM's and TensorRT-LLM's chunked prefill a step takes the running decodes first and fills the
rest of its token budget (`--max-num-batched-tokens`, 8,192) with prompts' chunks; SGLang runs
a batch of prompts on its own while decodes wait. Either way the decodes of those steps take
longer, which is the interference disaggregation removes: a decoder of a disaggregated layout
only decodes, but for the prompts the router keeps on it (below `routingThreshold`), which it
prefills as an aggregated replica would.
"""

import functools
import math
from dataclasses import dataclass

from planner.efficiency import DRAFT_ACCEPTANCE, HANDOFFS, Handoff
from planner.layouts import Role
from planner.phases import (
    PREFILL_CHUNK_TOKENS,
    Deployment,
    chunk_seconds,
    decode_step_seconds,
    kv_transfer_seconds,
    prefill_seconds,
)


@dataclass(frozen=True)
class Steps:
    """A decoding replica at one batch: its plain decode step, a step that also carries
    prompts, and how many prompts' tokens that step takes."""

    decode: float
    mixed: float
    # Prompts a mixed step carries, and mixed steps each such group of prompts needs.
    prompts: float
    chunks: int

    @property
    def extra(self) -> float:
        return self.mixed - self.decode


class Serving:
    """A resolved scenario: its phases as functions of the load."""

    def __init__(
        self,
        deployment: Deployment,
        roles: tuple[Role, ...],
        workload: tuple[int, int],
        draft_tokens: int = 0,
        blocking_transfer: bool = True,
        *,
        handoff: Handoff = HANDOFFS["lmcache"],
        spread: float = 0.0,
        local_share: float = 0.0,
    ):
        self.deployment = deployment
        self.roles = roles
        self.input_tokens, self.output_tokens = workload
        self.context = self.input_tokens + self.output_tokens / 2
        self.first = roles[0]
        self.decoder = roles[-1]
        self.disaggregated = len(roles) == 2
        self.mixes = deployment.efficiency.mixes_prefill
        # Speculative decoding checks 1 + drafts tokens a step and keeps the accepted ones.
        self.checked_tokens = 1 + draft_tokens
        self.accepted_tokens = sum(DRAFT_ACCEPTANCE**i for i in range(draft_tokens + 1))
        # Steps a request decodes after its first token.
        self.decode_steps = max(self.output_tokens - 1, 0) / self.accepted_tokens
        self.blocking_transfer = blocking_transfer
        self.handoff = handoff
        # Lengths spread evenly over typical x (1 +/- spread).
        self.spread = spread
        # The share of prompts prefilled on the decoding replicas: every one when aggregated;
        # disaggregated, those the router keeps off the prefill role.
        self.local_share = local_share if self.disaggregated else 1.0
        self.transfer = 0.0
        if self.disaggregated:
            self.transfer = kv_transfer_seconds(
                deployment, self.first.parallelism, self.decoder.parallelism, self.input_tokens
            )

    # -- prefill replicas (disaggregated) ------------------------------------------------
    @property
    def most_prompts(self) -> int:
        """Prompts a prefill pass takes at once: a chunk's tokens per attention group, and no
        more than the engine's --max-num-seqs."""
        layout = self.first.parallelism
        fit = max(1, PREFILL_CHUNK_TOKENS // max(self.input_tokens, 1))
        return max(1, min(fit, self.first.max_seqs)) * layout.data_parallel_attention

    def prefill(self, prompts: float) -> float:
        prompts = max(prompts, 1.0)
        whole = math.floor(prompts)
        time = prefill_seconds(self.deployment, self.first.parallelism, self.input_tokens, whole)
        if prompts > whole:
            after = prefill_seconds(
                self.deployment, self.first.parallelism, self.input_tokens, whole + 1
            )
            time += (prompts - whole) * (after - time)
        return time

    def pass_seconds(self, prompts: float) -> float:
        """A prefill replica busy with a pass of `prompts`: LMCache sends each prompt's KV
        after the forward pass while the prefiller waits."""
        sending = prompts * self.transfer if self.blocking_transfer else 0.0
        return self.prefill(prompts) + sending

    def handed_over(self, prompts: float) -> float:
        """From a pass's start to a prompt's KV on the decoder, on average over the pass, and
        the hand-off's fixed part (its decode steps are the load's)."""
        sent = (prompts + 1) / 2 if self.blocking_transfer else 1.0
        return self.prefill(prompts) + sent * self.transfer + self.handoff.fixed_s

    def bulk(self, rate: float) -> float:
        """Prompts a pass takes at `rate` per replica: those that arrive while the previous
        pass runs (bulk service), one at least, the pass's limit at most."""
        prompts = 1.0
        for _ in range(6):
            prompts = min(max(rate * self.pass_seconds(prompts), 1.0), self.most_prompts)
        return prompts

    # -- decoding replicas ---------------------------------------------------------------
    @functools.lru_cache(maxsize=4096)  # noqa: B019 (a Serving lives for one prediction)
    def decode_step(self, batch: float) -> float:
        return decode_step_seconds(
            self.deployment, self.decoder.parallelism, batch, self.context, self.checked_tokens
        )

    def room(self, batch: float) -> float:
        """Prompt tokens a step takes beside `batch` decodes: the budget they leave, in each
        data-parallel attention group (each schedules its own), over the replica. SGLang's
        prefill batches run apart from the decodes, on a budget of their own
        (`--chunked-prefill-size`)."""
        groups = self.decoder.parallelism.data_parallel_attention
        decoding = batch / groups * self.checked_tokens if self.mixes else 0.0
        per_group = max(PREFILL_CHUNK_TOKENS - decoding, 1.0)
        return per_group * groups

    def prompts_fit(self, batch: float) -> float:
        """Whole prompts a step takes beside `batch` decodes, one at least."""
        groups = self.decoder.parallelism.data_parallel_attention
        per_group = self.room(batch) / groups
        return max(1.0, math.floor(per_group / max(self.input_tokens, 1))) * groups

    def steps(self, batch: float, prompts: float) -> Steps:
        """The steps of a decoding replica with `batch` running requests when `prompts` arrive
        together (1 for a Poisson arrival, a group for clients that finish in one step)."""
        plain = self.decode_step(batch)
        if self.local_share <= 0:
            return Steps(plain, plain, prompts, 0)
        tokens = prompts * self.input_tokens
        chunks = max(1, math.ceil(tokens / self.room(batch)))
        if self.mixes:
            layout = self.decoder.parallelism
            mixed = plain + chunk_seconds(
                self.deployment, layout, tokens / chunks, self.input_tokens
            )
        else:
            # SGLang: the prompts' batch runs on its own, then the decodes.
            mixed = plain + self.prefill_alone(prompts) / chunks
        return Steps(plain, mixed, prompts, chunks)

    def prefill_alone(self, prompts: float) -> float:
        whole = max(1, math.ceil(prompts))
        time = prefill_seconds(self.deployment, self.decoder.parallelism, self.input_tokens, whole)
        return time * prompts / whole

    def arriving_together(self, rate: float, batch: float) -> float:
        """Poisson arrivals share a step: those that come while one runs go in the next."""
        fit = self.prompts_fit(batch)
        prompts = 1.0
        for _ in range(4):
            found = min(max(rate * self.steps(batch, prompts).mixed, 1.0), fit)
            if abs(found - prompts) < 0.01 * prompts:
                return found
            prompts = found
        return prompts

    # -- capacity ------------------------------------------------------------------------
    def capacity(self) -> float:
        """Requests per second the layout serves at most: the prefill replicas at their fullest
        (for the prompts they take), and the decoders at their largest batch with the prompts
        they prefill themselves."""
        full = float(self.decoder.max_batch)
        limits = []
        remote = 1 - self.local_share
        if remote > 0:
            most = self.most_prompts
            limits.append(self.first.replicas * most / self.pass_seconds(most) / remote)
        steps = self.steps(full, self.prompts_fit(full))
        # Each request decodes `decode_steps` steps, the batch sharing them, and a local prompt
        # takes chunks/prompts mixed steps (SGLang's prefill batches, their extra alone).
        local = self.local_share * steps.chunks / steps.prompts
        per_request = self.decode_steps * steps.decode / full + local * steps.extra
        prompts_only = local * (steps.mixed if self.mixes else steps.extra)
        limits.append(self.decoder.replicas / max(per_request, prompts_only, 1e-9))
        return min(limits)
