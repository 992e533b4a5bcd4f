"""What the dashboards and alerts watch of each DPD endpoint, as plain values.

The program fills these from the endpoint settings; observability knows nothing else of them.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class WatchedRole:
    role: str  # "prefill" or "decode"
    min_replicas: int
    max_replicas: int
    # The series the role's autoscaling trigger reads, when it names one of the stack's
    # metrics (None: fixed replicas, or a query of the user's own).
    autoscaling_series: str | None = None


@dataclass(frozen=True)
class WatchedEndpoint:
    name: str
    namespace: str
    roles: tuple[WatchedRole, ...]
    # The name the operator names the endpoint's pods after (its generation's); None: `name`.
    pods_of: str | None = None
    # The endpoint's latency objectives at the 90th percentile, in milliseconds.
    ttft_ms: float | None = None
    tpot_ms: float | None = None

    @property
    def pod_name_prefix(self) -> str:
        return self.pods_of or self.name
