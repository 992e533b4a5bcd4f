"""What an endpoint adds to the pods the operator creates (`kubernetes`): their service
account and scheduler, init containers and extra volumes, and the model cache on the nodes
(`modelCacheConfig`, operator 3.3 and later)."""

from pydantic import Field

from components.core.findings import Finding
from components.core.shaped import shaped_str
from components.core.spec import Spec
from components.endpoint.environment import credentials_in
from components.endpoint.schema import crd_shaped

# A service account's or scheduler's name: a DNS subdomain (the CRD's pattern).
DnsSubdomain = shaped_str(
    r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",
    "must be a Kubernetes name: lowercase letters, digits, '-' and '.', starting and ending "
    "with a letter or digit, at most 253 characters",
    max_length=253,
)


class PodCustomizations(Spec):
    # None: the namespace's default service account, and Kubernetes' default scheduler.
    service_account_name: DnsSubdomain | None = None
    scheduler_name: DnsSubdomain | None = None
    init_containers: crd_shaped("kubernetes.initContainers") | None = None
    # Volumes for the init containers' volumeMounts.
    volumes: crd_shaped("kubernetes.volumes") | None = None


def check_pod(pod: PodCustomizations | None) -> list[Finding]:
    """A credential in an init container, which the manifest carries in plain text."""
    if pod is None or pod.init_containers is None:
        return []
    return credentials_in(pod.init_containers, "kubernetes.initContainers")


class WeightsCache(Spec):
    # None keeps the operator's defaults: off, under /opt/dlami/nvme.
    enabled: bool | None = None
    host_path: str | None = Field(None, min_length=1, max_length=255)


class ImageCache(Spec):
    enabled: bool


class ModelCacheConfig(Spec):
    weights_cache: WeightsCache | None = None
    image_cache: ImageCache | None = None
