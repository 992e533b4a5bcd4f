"""What the signature rules read (the stack's view of the endpoint and the cluster's), what
they find, and the helpers they share."""

import itertools
import shlex
from dataclasses import dataclass
from datetime import datetime

from components.endpoint.spec import EndpointSpec
from components.sizing.kv import EndpointSizing
from infra.stack_settings import StackSettings
from tools.diagnose.cluster_view import EndpointStatus, EventView, PodView

TROUBLESHOOTING = "AWS, Disaggregated Prefill and Decode (DPD) deployment issues"

GUIDE = "AWS, Disaggregated Prefill and Decode for HyperPod inference"


@dataclass(frozen=True)
class Finding:
    signature: str
    where: str
    cause: str
    seen: str
    key: str
    value: str
    source: str


@dataclass(frozen=True)
class Observed:
    stack: StackSettings
    index: int
    sizing: EndpointSizing | None
    status: EndpointStatus
    pods: list[PodView]
    routers: list[PodView]
    events: list[EventView]
    # Log file name (`<pod>.<container>[.previous].log`) -> text.
    logs: dict[str, str]
    operator_image: str | None
    captured_at: datetime
    # The InferenceEndpointConfig read: `<name>-g<digest>`, the generation's, else the name.
    object_name: str

    @property
    def spec(self) -> EndpointSpec:
        return self.stack.endpoints[self.index]

    def key(self, field: str) -> str:
        return f"endpoints[{self.index}].{field}"

    def log(self, pod: PodView, previous: bool = False) -> str:
        return self.logs.get(f"{pod.name}.{pod.main}{'.previous' * previous}.log", "")

    def role(self, role: str) -> list[PodView]:
        return [pod for pod in self.pods if pod.role == role]


# kubectl's flags the advice uses; each takes the next argument as its value, whatever it is.
_FLAGS = ("-n", "-c")


def command(*argv: str) -> str:
    """A kubectl command to paste, in backticks. Names read from a cluster or a bundle may hold
    anything: each is quoted for the shell, and one that begins with '-' (no Kubernetes name
    does), which kubectl would read as an option, makes no command at all."""
    for before, word in itertools.pairwise(argv):
        if word.startswith("-") and word not in _FLAGS and before not in _FLAGS:
            return f"(no command: the bundle names an object {word!r}, which is no Kubernetes name)"
    return f"`{shlex.join(argv)}`"


def seconds_since(when: datetime | None, now: datetime) -> float:
    return 0.0 if when is None else (now - when).total_seconds()


def minutes(seconds: float) -> str:
    return f"{seconds / 60:.0f} min"


def count(lines: list, what: str = "such lines") -> str:
    return f" ({len(lines)} {what})" if len(lines) > 1 else ""


def operator_advice(seen: Observed) -> tuple[str, str]:
    operator = seen.stack.operator
    if operator.installed is not None:
        key = "operator.installed.addonVersion"
        pinned = operator.installed.addon_version or operator.installed.operator_version
    else:
        key, pinned = "operator.addonVersion", operator.addon_version
    running = f"; the cluster's operator runs {seen.operator_image}" if seen.operator_image else ""
    return key, (
        f"v1.3.0-eksbuild.1 or later (operator 3.2, the first with DPD); the stack says "
        f"{pinned}{running}"
    )
