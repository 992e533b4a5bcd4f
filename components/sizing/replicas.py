"""How many pods of each role an endpoint runs (prefill and decode, or serving), and the most
GPUs it can ever claim."""

from dataclasses import dataclass

from components.endpoint.autoscaling import Role, metric_of
from components.endpoint.roles import RoleSpec
from components.endpoint.spec import EndpointSpec


@dataclass(frozen=True)
class RoleReplicas:
    minimum: int
    maximum: int
    gpus: int
    # The metric autoscaling follows; None when the count is fixed.
    metric: str | None

    @property
    def max_gpus(self) -> int:
        return self.maximum * self.gpus

    def describe(self) -> str:
        count = (
            str(self.minimum) if self.minimum == self.maximum else f"{self.minimum}-{self.maximum}"
        )
        scaling = f", scaling on {self.metric}" if self.metric else ""
        return f"{count} x {self.gpus} GPUs{scaling}"


@dataclass(frozen=True)
class EndpointReplicas:
    # By role, as EndpointSpec.roles() names them.
    roles: dict[str, RoleReplicas]

    @property
    def max_gpus(self) -> int:
        return sum(role.max_gpus for role in self.roles.values())


def _role(role: RoleSpec, name: Role) -> RoleReplicas:
    metric = metric_of(role.autoscaling, name) if role.autoscaling else None
    return RoleReplicas(role.min_replicas, role.max_replicas, role.gpus, metric)


def endpoint_replicas(spec: EndpointSpec) -> EndpointReplicas:
    return EndpointReplicas({name: _role(role, name) for name, (role, _) in spec.roles().items()})
