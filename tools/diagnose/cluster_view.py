"""The endpoint's objects as the API returns them, read into what the signatures look at.

Pods are picked by name (runtime names, DESIGN.md): `prefill-<name>-*` and `decode-<name>-*`
in the endpoint's namespace, labelled `inference.sagemaker.aws.amazon.com/dpd-role`, and the
router `<name>-<namespace>-router-*` in hyperpod-inference-system (AWS's DPD guide finds it
with `grep -- "${DEPLOYMENT_NAME}-${NAMESPACE}-router"`, and lists it as `<name>-router-*`, so
both are taken). The worker containers are `prefill-<name>` and `decode-<name>`, the router's
`router-container` (the guide's `kubectl logs -c` lines).
"""

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from tools.diagnose.bundle import DPD_ROLE_LABEL

ROUTER_CONTAINER = "router-container"


@dataclass(frozen=True)
class ContainerView:
    name: str
    image: str
    ready: bool
    restarts: int
    # The reason it waits (ContainerCreating, ImagePullBackOff, CrashLoopBackOff), if it does.
    waiting: str | None
    waiting_message: str
    started_at: datetime | None
    environment: dict[str, str]
    efa_devices: int


@dataclass(frozen=True)
class PodView:
    name: str
    namespace: str
    role: str
    phase: str
    created: datetime | None
    containers: tuple[ContainerView, ...]
    # The container the signatures read: the vLLM worker, or the router.
    main: str

    @property
    def ready_text(self) -> str:
        ready = sum(container.ready for container in self.containers)
        return f"{ready}/{len(self.containers)}"

    def container(self, name: str) -> ContainerView | None:
        return next((c for c in self.containers if c.name == name), None)


@dataclass(frozen=True)
class EventView:
    object_name: str
    reason: str
    message: str
    type: str
    count: int


def _time(value: Any) -> datetime | None:
    """An RFC 3339 time as the API writes it; one without a zone (no API writes that) is UTC,
    which the time the bundle was read is in."""
    if not isinstance(value, str):
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _items(document: Any) -> list[dict[str, Any]]:
    items = _mapping(document).get("items")
    return [item for item in items if isinstance(item, dict)] if isinstance(items, list) else []


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _environment(container: dict[str, Any]) -> dict[str, str]:
    env = container.get("env")
    return {
        e["name"]: _text(e.get("value"))
        for e in (env if isinstance(env, list) else [])
        if isinstance(e, dict) and isinstance(e.get("name"), str)
    }


def _efa(container: dict[str, Any]) -> int:
    resources = _mapping(container.get("resources"))
    for side in ("limits", "requests"):
        value = _mapping(resources.get(side)).get("vpc.amazonaws.com/efa")
        if isinstance(value, (str, int)) and str(value).isdigit():
            return int(value)
    return 0


def _container_views(pod: dict[str, Any]) -> tuple[ContainerView, ...]:
    spec, status = _mapping(pod.get("spec")), _mapping(pod.get("status"))
    statuses = {
        _text(s.get("name")): s
        for s in status.get("containerStatuses") or []
        if isinstance(s, dict)
    }
    views = []
    for container in spec.get("containers") or []:
        if not isinstance(container, dict):
            continue
        name = _text(container.get("name"))
        state = _mapping(_mapping(statuses.get(name)).get("state"))
        waiting = _mapping(state.get("waiting"))
        views.append(
            ContainerView(
                name=name,
                image=_text(container.get("image")),
                ready=_mapping(statuses.get(name)).get("ready") is True,
                restarts=_count(_mapping(statuses.get(name)).get("restartCount")),
                waiting=_text(waiting.get("reason")) or None,
                waiting_message=_text(waiting.get("message")),
                started_at=_time(_mapping(state.get("running")).get("startedAt")),
                environment=_environment(container),
                efa_devices=_efa(container),
            )
        )
    return tuple(views)


def _endpoint_pod_role(pod: dict[str, Any], name: str) -> str | None:
    """`prefill` or `decode` for this endpoint's pods: a Deployment's pod is named
    <deployment>-<pod-template-hash>-<5 characters>, so `prefill-dpd` is not `prefill-dpd-test`."""
    metadata = _mapping(pod.get("metadata"))
    labels = _mapping(metadata.get("labels"))
    role = labels.get(DPD_ROLE_LABEL)
    if role not in ("prefill", "decode"):
        return None
    pod_name = _text(metadata.get("name"))
    template_hash = _text(labels.get("pod-template-hash"))
    if template_hash:
        return role if pod_name.startswith(f"{role}-{name}-{template_hash}-") else None
    return (
        role if re.fullmatch(rf"{role}-{re.escape(name)}-[a-z0-9]+-[a-z0-9]+", pod_name) else None
    )


def _view(pod: dict[str, Any], role: str, main: str) -> PodView:
    metadata = _mapping(pod.get("metadata"))
    containers = _container_views(pod)
    names = [c.name for c in containers]
    if main not in names:
        # Another operator's names: the role's own container, else the first.
        main = next((n for n in names if n.startswith(role)), names[0] if names else main)
    return PodView(
        name=_text(metadata.get("name")),
        namespace=_text(metadata.get("namespace")),
        role=role,
        phase=_text(_mapping(pod.get("status")).get("phase")) or "Unknown",
        created=_time(metadata.get("creationTimestamp")),
        containers=containers,
        main=main,
    )


def endpoint_pods(document: Any, name: str) -> list[PodView]:
    views = []
    for pod in _items(document):
        role = _endpoint_pod_role(pod, name)
        if role is not None:
            views.append(_view(pod, role, f"{role}-{name}"))
    return sorted(views, key=lambda view: (view.role != "prefill", view.name))


def router_pods(document: Any, name: str, namespace: str) -> list[PodView]:
    prefixes = (f"{name}-{namespace}-router-", f"{name}-router-")
    return [
        _view(pod, "router", ROUTER_CONTAINER)
        for pod in _items(document)
        if _text(_mapping(pod.get("metadata")).get("name")).startswith(prefixes)
    ]


def events_of(document: Any, names: set[str]) -> list[EventView]:
    found = []
    for event in _items(document):
        involved = _text(_mapping(event.get("involvedObject")).get("name"))
        if involved in names:
            found.append(
                EventView(
                    object_name=involved,
                    reason=_text(event.get("reason")),
                    message=_text(event.get("message")).strip(),
                    type=_text(event.get("type")),
                    count=_count(event.get("count")) or 1,
                )
            )
    return found


@dataclass(frozen=True)
class EndpointStatus:
    state: str
    # (type, status, reason, message) of each condition.
    conditions: tuple[tuple[str, str, str, str], ...]
    has_pd_spec: bool
    environment: dict[str, str]


def object_name(document: Any, endpoint: str) -> str:
    """The InferenceEndpointConfig's name, `<endpoint>-g<digest>` in a generation, whose
    pods and router carry it; the endpoint's own name when the object has none."""
    return _text(_mapping(_mapping(document).get("metadata")).get("name")) or endpoint


def endpoint_status(document: Any) -> EndpointStatus:
    spec, status = (_mapping(_mapping(document).get(part)) for part in ("spec", "status"))
    fields = ("type", "status", "reason", "message")
    conditions = [c for c in status.get("conditions") or [] if isinstance(c, dict)]
    return EndpointStatus(
        state=_text(status.get("state")),
        conditions=tuple(tuple(_text(c.get(f)) for f in fields) for c in conditions),
        has_pd_spec=isinstance(spec.get("pdSpec"), dict),
        environment=_environment({"env": _mapping(spec.get("worker")).get("environmentVariables")}),
    )


def operator_image(document: Any) -> str | None:
    template = _mapping(_mapping(_mapping(document).get("spec")).get("template"))
    for container in _mapping(template.get("spec")).get("containers") or []:
        if isinstance(container, dict) and container.get("name") == "manager":
            return _text(container.get("image")) or None
    return None
