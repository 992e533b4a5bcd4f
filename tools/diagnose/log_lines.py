"""The log lines DPD's failures and health are read from, each as its source prints it.

- `'pd_role': 'sender'` / `'receiver'`: the prefill and decode workers' LMCache configuration
  (AWS's DPD guide, "Verify DPD roles": `grep -oE "'pd_role': '[a-z]+'"`).
- `Retrieved N out of M required tokens (from T total tokens). size: S gb, cost C ms,
  throughput: X GB/s;`: LMCache's cache engine on each TP rank of the decoder
  (LMCache/LMCache, lmcache/v1/cache_engine.py, `retrieve`; the guide's "Verify KV transfer"
  prints the size on a second line, which is read too).
- `Failed to allocate memory object, retrying...`: LMCache's PD backend waiting for room in the
  decoder's buffer (lmcache/v1/storage_backend/pd_backend.py, the receiver's allocation loop).
- `EngineDeadError`, `TimeoutError`: vLLM's engine dying (AWS's DPD troubleshooting page).
- `Conditional routing: estimated_tokens=N, threshold=T, disaggregate=True|False`: the router's
  decision for each request (the guide's `grep -E "Conditional routing"`).
"""

import re
import statistics
from dataclasses import dataclass

PD_ROLE = re.compile(r"'pd_role': '([a-z]+)'")
# A count or a figure as LMCache prints one: a forged `1.2.3` or a 5,000-digit number is none,
# and Python would refuse to convert it.
COUNT = r"(\d{1,15})(?!\d)"
FIGURE = r"(\d{1,15}(?:\.\d{1,15})?)(?![\d.])"
RETRIEVED = re.compile(
    rf"Retrieved {COUNT} out of {COUNT} required tokens \(from {COUNT} total tokens\)\.?"
    rf"(?:[ \t]*\r?\n?[ \t]*size: {FIGURE} gb, cost {FIGURE} ms, throughput: {FIGURE} GB/s)?"
)
ALLOCATION = re.compile("Failed to allocate memory object")
ENGINE_DEATH = re.compile(r"\b(EngineDeadError|TimeoutError)\b")
ROUTING = re.compile(
    rf"Conditional routing: estimated_tokens={COUNT}, threshold={COUNT}, "
    r"disaggregate=(True|False)"
)
# A line shown in a finding is cut here.
SHOWN = 300


def _line_at(text: str, start: int) -> str:
    begin = text.rfind("\n", 0, start) + 1
    end = text.find("\n", start)
    return text[begin : len(text) if end < 0 else end].strip()[:SHOWN]


@dataclass(frozen=True)
class Retrieval:
    retrieved: int
    required: int
    throughput_gbps: float | None
    line: str


def retrievals(text: str) -> list[Retrieval]:
    found = []
    for match in RETRIEVED.finditer(text):
        retrieved, required, _, _, _, throughput = match.groups()
        line = " ".join(match.group(0).split())
        prefix = _line_at(text, match.start()).split("Retrieved")[0]
        found.append(
            Retrieval(
                retrieved=int(retrieved),
                required=int(required),
                throughput_gbps=float(throughput) if throughput else None,
                line=(prefix + line)[:SHOWN],
            )
        )
    return found


def pd_roles(text: str) -> set[str]:
    return set(PD_ROLE.findall(text))


def lines_with(text: str, pattern: re.Pattern[str]) -> list[str]:
    return [line.strip()[:SHOWN] for line in text.splitlines() if pattern.search(line)]


@dataclass(frozen=True)
class Routing:
    estimated_tokens: int
    threshold: int
    disaggregate: bool
    line: str


def routings(text: str) -> list[Routing]:
    return [
        Routing(int(tokens), int(threshold), verdict == "True", _line_at(text, match.start()))
        for match in ROUTING.finditer(text)
        for tokens, threshold, verdict in [match.groups()]
    ]


def median_throughput(found: list[Retrieval]) -> float | None:
    moved = [r.throughput_gbps for r in found if r.retrieved > 0 and r.throughput_gbps is not None]
    return statistics.median(moved) if moved else None
