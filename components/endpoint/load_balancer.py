"""The load balancer the operator puts in front of an endpoint's pods (`loadBalancer`): how
the ALB's target group spreads requests and how long it keeps an idle connection. Its health
check path is the endpoint's `healthCheckPath`."""

from typing import Literal

from pydantic import Field

from components.core.spec import Spec


class LoadBalancer(Spec):
    # None keeps the CRD's default, least_outstanding_requests.
    routing_algorithm: Literal["least_outstanding_requests", "round_robin"] | None = None
    # The ALB's idle timeout (the CRD's bounds; operator 3.3 and later). None keeps its 60 s.
    idle_timeout_seconds: int | None = Field(None, ge=1, le=4000)
