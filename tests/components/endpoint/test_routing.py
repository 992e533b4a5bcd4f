from typing import Any

import pytest

from components.endpoint.routing import check_kv_cache, check_routing, in_cluster_url, router_url
from components.endpoint.spec import EndpointSpec
from tests.components.endpoint.items import endpoint_item, endpoint_problem, endpoint_problems
from tests.components.endpoint.test_manifest import MINIMAL
from tests.support import by_code


def spec(**changes: Any) -> EndpointSpec:
    return EndpointSpec.model_validate({**MINIMAL, **changes})


def codes(**changes: Any) -> dict[str, list[tuple[str, str]]]:
    endpoint = spec(**changes)
    return by_code(check_routing(endpoint) + check_kv_cache(endpoint.kv_cache))


@pytest.mark.parametrize(
    "changes, code, level, field",
    [
        (
            {"routingStrategy": "kvaware"},
            "kvaware-needs-completions",
            "error",
            "invocationEndpoint",
        ),
        ({"prefill": {"replicas": 2}}, "prefixaware-many-prefills", "warning", "routingStrategy"),
        (
            {"prefill": {"autoscaling": {"minReplicas": 1, "maxReplicas": 3}}},
            "prefixaware-many-prefills",
            "warning",
            "routingStrategy",
        ),
        (
            {"kvCache": {"l2CacheBackend": "redis"}},
            "redis-needs-url",
            "error",
            "kvCache.l2CacheLocalUrl",
        ),
    ],
)
def test_each_rule_reports_its_setting(changes, code, level, field):
    assert (level, field) in codes(**changes)[code]


@pytest.mark.parametrize(
    "changes, code",
    [
        (
            {"routingStrategy": "kvaware", "invocationEndpoint": "v1/chat/completions"},
            "kvaware-needs-completions",
        ),
        (
            {"prefill": {"replicas": 2}, "routingStrategy": "roundrobin"},
            "prefixaware-many-prefills",
        ),
        ({"kvCache": {"l2CacheBackend": "tieredstorage"}}, "redis-needs-url"),
    ],
)
def test_each_rule_stays_quiet_when_the_settings_are_right(changes, code):
    assert code not in codes(**changes)


def test_the_routing_advice_says_following_it_replaces_the_endpoint():
    scaled = {"prefill": {"replicas": 1, "autoscaling": {"minReplicas": 1, "maxReplicas": 3}}}
    (advice,) = [f for f in check_routing(spec(**scaled)) if f.field == "routingStrategy"]
    assert advice.message.startswith(
        "prefixaware with up to 3 prefill replicas (prefill.autoscaling.maxReplicas)"
    )
    assert "changing routingStrategy replaces it" in advice.message


REFUSED = [
    (
        {"name": "70b-llama", "endpointName": "llama-70b"},
        "name",
        "a Service's name starts with a letter",
    ),
    (
        {"name": "a" * 30, "namespace": "b" * 20},
        "name",
        "and Kubernetes takes 63",
    ),
    (
        {
            "kvCache": {
                "l2CacheBackend": "redis",
                "l2CacheLocalUrl": "https://cache:6379",
            }
        },
        "kvCache.l2CacheLocalUrl",
        "redis://, rediss://",
    ),
]


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_a_router_name_or_cache_url_the_operator_would_fail_on_is_refused(changes, key, says):
    assert says in endpoint_problem(changes, key)


VALID = [
    {
        "kvCache": {
            "l2CacheBackend": "redis",
            "l2CacheLocalUrl": "rediss://user:pw@cache.internal:6380/0",
        }
    },
    {
        "kvCache": {
            "l2CacheBackend": "redis",
            "l2CacheLocalUrl": "redis-sentinel://s1:26379,s2:26379",
        }
    },
    {"name": "llama-70b", "namespace": "n" * 30},
]


@pytest.mark.parametrize("case", VALID)
def test_unusual_but_valid_routing_and_caches_pass(case):
    assert endpoint_problems(endpoint_item(case)) == []


def test_a_password_in_the_redis_url_is_warned_about_since_lmcache_takes_it_nowhere_else():
    url = "rediss://user:pw@cache.internal:6380/0"
    (finding,) = check_kv_cache(
        spec(kvCache={"l2CacheBackend": "redis", "l2CacheLocalUrl": url}).kv_cache
    )
    assert (finding.level, finding.field) == ("warning", "kvCache.l2CacheLocalUrl")
    assert finding.message.startswith("holds a password, which sits in plain text")


def test_router_url_follows_the_operator_naming():
    assert router_url("dpd-test", "default") == (
        "http://dpd-test-default-routing-service.hyperpod-inference-system.svc.cluster.local:443"
    )


def test_in_cluster_callers_keep_the_operators_router_unless_a_swap_renames_it():
    assert in_cluster_url(spec(endpointName="chat")) == router_url("chat", "default")
    # Without a SageMaker name a change swaps generations, behind the stack's alias.
    assert in_cluster_url(spec()) == "http://chat.default.svc.cluster.local:443"


def test_dpd_cannot_switch_its_router_off():
    assert codes(routingEnabled=False) == {"dpd-without-routing": [("error", "routingEnabled")]}
    assert codes(routingEnabled=False, serving={"replicas": 1, "gpus": 8}) == {}
