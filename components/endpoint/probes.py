"""The worker container's probes (`worker.probes`): readiness, liveness and startup, each in
the shape Kubernetes gives a container probe, which the CRD copies whole."""

from components.core.findings import Finding, warning
from components.core.spec import Spec
from components.endpoint.schema import crd_shaped

PROBE_KINDS = ("readinessProbe", "livenessProbe", "startupProbe")


class Probes(Spec):
    # None keeps the operator's probe (it has none documented).
    readiness_probe: crd_shaped("worker.probes.readinessProbe") | None = None
    liveness_probe: crd_shaped("worker.probes.livenessProbe") | None = None
    startup_probe: crd_shaped("worker.probes.startupProbe") | None = None


def check_probes(probes: Probes | None, port: int, port_name: str) -> list[Finding]:
    """An HTTP or TCP probe of a port the model server does not listen on fails while the
    server is up: readiness keeps the pod out of the load balancer, liveness restarts it."""
    if probes is None:
        return []
    found = []
    for kind, probe in probes.model_dump(by_alias=True, exclude_none=True).items():
        for action in ("httpGet", "tcpSocket"):
            probed = (probe.get(action) or {}).get("port")
            if probed is not None and probed not in (port, str(port), port_name):
                found.append(
                    warning(
                        "probe-port",
                        f"probes.{kind}.{action}.port",
                        f"{probed} is not the port the model server listens on ({port}, "
                        f"named {port_name}); the probe fails while the server is up",
                    )
                )
    return found
