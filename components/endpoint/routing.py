"""The operator's KV caching and intelligent routing: which requests take the disaggregated
path, how their prefill replica is picked, the router Service the operator names after the
endpoint, and the L2 KV cache LMCache reads. Fields are relative to the endpoint."""

from urllib.parse import urlsplit

from components.core.findings import Finding, error, warning
from components.endpoint.generation import stable_address
from components.endpoint.spec import EndpointSpec, KvCache
from components.operator.iam import OPERATOR_NAMESPACE

# The URL schemes LMCache's Redis connectors parse (lmcache/v1/storage_backend/connector:
# the Redis adapter takes redis://, rediss:// and unix://; the Sentinel one redis-sentinel://).
REDIS_SCHEMES = ("redis", "rediss", "unix", "redis-sentinel")
URL = "kvCache.l2CacheLocalUrl"


# The port of the operator's routing Service (AWS's DPD guide: plain HTTP on 443).
ROUTER_PORT = 443


def router_service(name: str, namespace: str) -> str:
    return f"{name}-{namespace}-routing-service"


def routing_service_host(object_name: str, namespace: str) -> str:
    return f"{router_service(object_name, namespace)}.{OPERATOR_NAMESPACE}.svc.cluster.local"


def router_url(object_name: str, namespace: str) -> str:
    return f"http://{routing_service_host(object_name, namespace)}:{ROUTER_PORT}"


def in_cluster_url(spec: EndpointSpec) -> str:
    """Where in-cluster callers reach the endpoint's router across changes: the operator's own
    Service, whose name the object keeps, or with rollout newName the stack's alias of the live
    generation's (generation.py)."""
    if spec.renames:
        return f"http://{stable_address(spec.name, spec.namespace)}:{ROUTER_PORT}"
    return router_url(spec.name, spec.namespace)


def check_routing(spec: EndpointSpec) -> list[Finding]:
    if not spec.aggregated and spec.routing_enabled is False:
        return [
            error(
                "dpd-without-routing",
                "routingEnabled",
                "false is not allowed with DPD: the operator's intelligent router is what "
                "sends each request to a prefiller and a decoder; serve aggregated (serving:) "
                "to run without it",
            )
        ]
    found = []
    path = spec.invocation_endpoint
    if (
        spec.intelligent_routing
        and spec.routing_strategy == "kvaware"
        and "completions" not in (path or "")
    ):
        found.append(
            error(
                "kvaware-needs-completions",
                "invocationEndpoint",
                f"{path or 'invocations (the default)'} does not work with routingStrategy "
                "kvaware, which needs a completions path such as v1/chat/completions or "
                "v1/completions",
            )
        )
    if spec.aggregated:
        # No pdSpec: no threshold, and no prefillers to spread.
        return found
    prefills = spec.prefill.max_replicas
    if prefills > 1 and spec.routing_strategy == "prefixaware":
        how_many = (
            f"up to {prefills} prefill replicas (prefill.autoscaling.maxReplicas)"
            if spec.prefill.autoscaling
            else f"{prefills} prefill replicas"
        )
        # The operator cannot change intelligentRoutingSpec in place (generation.py).
        found.append(
            warning(
                "prefixaware-many-prefills",
                "routingStrategy",
                f"prefixaware with {how_many} can pile load on one prefiller; roundrobin "
                "spreads it evenly, but on a deployed endpoint changing routingStrategy "
                "replaces it (`hyperpod-dpd diff` says how, and what callers see)",
            )
        )
    return found


def check_kv_cache(kv: KvCache) -> list[Finding]:
    url, backend = kv.l2_cache_local_url, kv.l2_cache_backend
    found = []
    # A warning only: LMCache takes a Redis password nowhere but in this URL.
    if url and urlsplit(url).password is not None:
        found.append(
            warning(
                "credential-in-url",
                URL,
                "holds a password, which sits in plain text in the stack file, the Pulumi state "
                "and the InferenceEndpointConfig; prefer a Redis reachable only from inside the "
                "cluster that needs none",
            )
        )
    if url and backend is None:
        found.append(
            error(
                "url-without-backend",
                URL,
                f"{url!r} names a cache but l2CacheBackend is not set; set "
                "l2CacheBackend: redis to use it",
            )
        )
    elif backend == "redis" and not url:
        found.append(
            error(
                "redis-needs-url",
                URL,
                "l2CacheBackend redis needs the Redis URL, e.g. redis://redis.cache:6379",
            )
        )
    elif backend == "redis" and url.split("://", 1)[0].lower() not in REDIS_SCHEMES:
        found.append(
            error(
                "redis-url-scheme",
                URL,
                f"{url!r} is not a Redis URL LMCache reads; it takes "
                f"{', '.join(s + '://' for s in REDIS_SCHEMES)}",
            )
        )
    return found
