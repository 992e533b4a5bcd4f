"""What observability is told of each endpoint: replica ranges, autoscaled series and SLO."""

from components.endpoint.spec import EndpointSpec
from components.observability.watched import WatchedEndpoint, WatchedRole
from infra.watched_endpoints import watched_endpoints
from tests.components.endpoint.test_manifest import MINIMAL


def endpoint(**changes) -> EndpointSpec:
    return EndpointSpec.model_validate({**MINIMAL, **changes})


def test_fixed_roles_range_over_their_replicas_and_nothing_is_autoscaled():
    (watched,) = watched_endpoints([endpoint(decode={"replicas": 2})], ["0a1b2"])
    assert watched == WatchedEndpoint(
        name=MINIMAL["name"],
        namespace="default",
        # The generation's name, which its pods carry.
        pods_of="chat-g0a1b2",
        roles=(WatchedRole("prefill", 1, 1), WatchedRole("decode", 2, 2)),
    )


def test_autoscaled_roles_carry_their_range_and_the_series_they_read():
    spec = endpoint(
        prefill={"replicas": 2, "autoscaling": {"minReplicas": 1, "maxReplicas": 4}},
        decode={
            "autoscaling": {
                "maxReplicas": 3,
                "metric": "query",
                "target": 5,
                "query": "sum(my_series)",
            }
        },
    )
    (watched,) = watched_endpoints([spec], ["0a1b2"])
    assert watched.roles == (
        WatchedRole("prefill", 1, 4, "vllm:num_requests_waiting"),
        # A query of the user's own is not one the stack can vouch for.
        WatchedRole("decode", 1, 3, None),
    )


def test_the_slo_comes_from_the_workload():
    spec = endpoint(workload={"slo": {"ttftMs": 1500, "tpotMs": 40}})
    (watched,) = watched_endpoints([spec], ["0a1b2"])
    assert (watched.ttft_ms, watched.tpot_ms) == (1500, 40)
