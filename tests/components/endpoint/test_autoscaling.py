"""Per-role autoscaling: the emitted pdSpec.autoScalingSpec, its defaults and its refusals."""

from typing import Any

import pytest
from pydantic import ValidationError

from components.endpoint.autoscaling import RoleAutoscaling, check_role_autoscaling, named_query
from components.endpoint.checks import check_endpoint
from components.endpoint.manifest import build_manifest
from components.endpoint.schema import SCHEMA_OPERATORS, schema_errors
from components.endpoint.spec import EndpointSpec
from tests.components.endpoint.items import endpoint_item, endpoint_problem, endpoint_problems
from tests.support import dev_endpoint

ADDRESS = "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1a2b3c4d-aaaa-bbbb-cccc-1234567890ab"


def manifest(prefill: dict[str, Any], decode: dict[str, Any], address: str | None = ADDRESS):
    spec = EndpointSpec.model_validate(
        {**dev_endpoint(), "prefill": {"gpus": 8, **prefill}, "decode": {"gpus": 8, **decode}}
    )
    return build_manifest(
        spec, model_bucket="models", region="us-west-2", prometheus_address=address
    )


@pytest.mark.parametrize("operator", SCHEMA_OPERATORS)
def test_both_roles_scale_on_their_own_trigger_and_the_crd_schema_accepts_it(operator):
    built = manifest(
        {"autoscaling": {"minReplicas": 1, "maxReplicas": 4, "metric": "waiting", "target": 4}},
        {
            "autoscaling": {
                "minReplicas": 1,
                "maxReplicas": 2,
                "metric": "running",
                "target": 24,
                "cooldownPeriod": 120,
                "scaleDownStabilizationTime": 600,
            }
        },
    )
    assert schema_errors(built, operator) == []
    assert built["spec"]["pdSpec"]["autoScalingSpec"] == {
        "prefillAutoScaling": {
            "minReplicaCount": 1,
            "maxReplicaCount": 4,
            "prometheusTrigger": {
                "name": "prefill-waiting",
                "serverAddress": ADDRESS,
                "query": "sum(vllm:num_requests_waiting"
                '{namespace="default",pod_name=~"prefill-dpd-test-[a-z0-9]{1,10}-[a-z0-9]{5}"})',
                "targetValue": 4,
                "metricType": "Average",
            },
        },
        "decodingAutoScaling": {
            "minReplicaCount": 1,
            "maxReplicaCount": 2,
            "prometheusTrigger": {
                "name": "decode-running",
                "serverAddress": ADDRESS,
                "query": "sum(vllm:num_requests_running"
                '{namespace="default",pod_name=~"decode-dpd-test-[a-z0-9]{1,10}-[a-z0-9]{5}"})',
                "targetValue": 24,
                "metricType": "Average",
            },
            "cooldownPeriod": 120,
            "scaleDownStabilizationTime": 600,
        },
    }


def test_replicas_stay_the_initial_count():
    built = manifest({"replicas": 2, "autoscaling": {"maxReplicas": 4}}, {})
    assert built["spec"]["pdSpec"]["prefillSpec"]["replicas"] == 2


def test_a_role_without_autoscaling_adds_nothing():
    built = manifest({"autoscaling": {"maxReplicas": 3}}, {})
    assert set(built["spec"]["pdSpec"]["autoScalingSpec"]) == {"prefillAutoScaling"}
    assert "autoScalingSpec" not in manifest({}, {})["spec"]["pdSpec"]


def test_defaults_follow_the_tuning_guide_from_each_role_max_num_seqs():
    scaling = manifest({"autoscaling": {"maxReplicas": 2}}, {"autoscaling": {"maxReplicas": 2}})
    spec = scaling["spec"]["pdSpec"]["autoScalingSpec"]
    prefill, decode = spec["prefillAutoScaling"], spec["decodingAutoScaling"]
    # Prefill on its queue: a quarter of the operator's --max-num-seqs 16.
    assert (prefill["prometheusTrigger"]["name"], prefill["prometheusTrigger"]["targetValue"]) == (
        "prefill-waiting",
        4,
    )
    # Decode on its running requests: three quarters of its 32, below the validated 64.
    assert (decode["prometheusTrigger"]["name"], decode["prometheusTrigger"]["targetValue"]) == (
        "decode-running",
        24,
    )
    assert prefill["minReplicaCount"] == 1


def test_the_default_decode_target_follows_its_own_max_num_seqs():
    built = manifest({}, {"maxNumSeqs": 64, "autoscaling": {"maxReplicas": 2}})
    trigger = built["spec"]["pdSpec"]["autoScalingSpec"]["decodingAutoScaling"]["prometheusTrigger"]
    assert trigger["targetValue"] == 48


def test_concurrent_requests_are_the_operator_metric_over_the_role_pods():
    assert named_query("concurrent", "decode", "llama", "inference") == (
        "sum(model_concurrent_requests"
        '{namespace="inference",pod_name=~"decode-llama-[a-z0-9]{1,10}-[a-z0-9]{5}"})'
    )


def test_an_own_query_and_server_address_are_taken_as_given():
    own = "https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-abc"
    built = manifest(
        {
            "autoscaling": {
                "maxReplicas": 3,
                "metric": "query",
                "query": "sum(rate(model_invocations_total[1m]))",
                "target": 2,
                "metricType": "Value",
                "serverAddress": own,
            }
        },
        {},
    )
    trigger = built["spec"]["pdSpec"]["autoScalingSpec"]["prefillAutoScaling"]["prometheusTrigger"]
    assert trigger == {
        "name": "prefill-query",
        "serverAddress": own,
        "query": "sum(rate(model_invocations_total[1m]))",
        "targetValue": 2,
        "metricType": "Value",
    }
    assert all(schema_errors(built, operator) == [] for operator in SCHEMA_OPERATORS)


def test_a_trigger_keeps_its_own_name_activation_and_cache_setting():
    scaling = {
        "maxReplicas": 3,
        "triggerName": "vllm-waiting",
        "activationTargetValue": 1,
        "useCachedMetrics": False,
    }
    built = manifest({"autoscaling": scaling}, {})
    trigger = built["spec"]["pdSpec"]["autoScalingSpec"]["prefillAutoScaling"]["prometheusTrigger"]
    assert trigger["name"] == "vllm-waiting"
    assert (trigger["activationTargetValue"], trigger["useCachedMetrics"]) == (1, False)
    assert all(schema_errors(built, operator) == [] for operator in SCHEMA_OPERATORS)


# AWS's autoscaling walkthrough's trigger (hyperpod-cli, end_to_end_walkthrough, 02-inference-
# deployment/01-custom-model-endpoint.md), on the dev endpoint's SageMaker endpoint.
CLOUDWATCH = {
    "name": "SageMaker-Invocations",
    "namespace": "AWS/SageMaker",
    "metricName": "Invocations",
    "dimensions": [
        {"name": "EndpointName", "value": "dpd-test"},
        {"name": "VariantName", "value": "AllTraffic"},
    ],
    "metricCollectionPeriod": 5,
    "metricCollectionStartTime": 120,
    "metricStat": "Sum",
    "metricType": "Average",
    "targetValue": 2,
}


def test_a_cloudwatch_trigger_alone_writes_no_prometheus_trigger():
    built = manifest({"autoscaling": {"maxReplicas": 3, "cloudWatch": CLOUDWATCH}}, {})
    entry = built["spec"]["pdSpec"]["autoScalingSpec"]["prefillAutoScaling"]
    assert entry["cloudWatchTrigger"] == CLOUDWATCH
    assert "prometheusTrigger" not in entry
    assert all(schema_errors(built, operator) == [] for operator in SCHEMA_OPERATORS)


def test_a_cloudwatch_trigger_beside_a_metric_adds_to_the_prometheus_trigger():
    scaling = {"maxReplicas": 3, "cloudWatch": CLOUDWATCH, "metric": "waiting", "target": 2}
    entry = manifest({"autoscaling": scaling}, {})["spec"]["pdSpec"]["autoScalingSpec"]
    assert {"cloudWatchTrigger", "prometheusTrigger"} <= set(entry["prefillAutoScaling"])


def test_a_cloudwatch_trigger_out_of_the_crds_shape_is_refused_naming_its_part():
    with pytest.raises(ValidationError, match="targetValue"):
        RoleAutoscaling.model_validate({"maxReplicas": 2, "cloudWatch": {"targetValue": "x"}})


def test_a_trigger_on_the_endpoint_follows_its_live_sagemaker_name():
    scaling = {"maxReplicas": 3, "cloudWatch": CLOUDWATCH}
    spec = EndpointSpec.model_validate(
        {**dev_endpoint(), "rollout": "newName", "prefill": {"gpus": 8, "autoscaling": scaling}}
    )
    built = build_manifest(spec, model_bucket="m", region="us-west-2", digest="0a1b2")
    trigger = built["spec"]["pdSpec"]["autoScalingSpec"]["prefillAutoScaling"]["cloudWatchTrigger"]
    assert trigger["dimensions"][0] == {
        "name": "EndpointName",
        "value": built["spec"]["endpointName"],
    }
    assert built["spec"]["endpointName"] == "dpd-test-g0a1b2"


def codes(
    scaling: dict, *, role="decode", replicas=1, max_num_seqs=32, endpoint_name="dpd-test"
) -> list[tuple[str, str]]:
    found = check_role_autoscaling(
        RoleAutoscaling.model_validate(scaling),
        role=role,
        replicas=replicas,
        max_num_seqs=max_num_seqs,
        endpoint_name=endpoint_name,
    )
    return [(f.code, f.field) for f in found]


WATCH = "decode.autoscaling.cloudWatch"


@pytest.mark.parametrize(
    "trigger, found",
    [
        (
            {},
            [("cloudwatch-trigger", f"{WATCH}.{key}")
             for key in ("namespace", "metricName", "dimensions", "targetValue")],
        ),
        ({**CLOUDWATCH, "targetValue": None}, [("cloudwatch-trigger", f"{WATCH}.targetValue")]),
        ({**CLOUDWATCH, "targetValue": -1}, [("cloudwatch-trigger", f"{WATCH}.targetValue")]),
        ({**CLOUDWATCH, "targetValue": 1e308}, [("cloudwatch-trigger", f"{WATCH}.targetValue")]),
        ({**CLOUDWATCH, "metricStat": "Banana"}, [("cloudwatch-trigger", f"{WATCH}.metricStat")]),
        (
            {**CLOUDWATCH, "metricCollectionPeriod": 45},
            [("cloudwatch-trigger", f"{WATCH}.metricCollectionPeriod")],
        ),
        (
            {**CLOUDWATCH, "metricCollectionStartTime": 122},
            [("cloudwatch-trigger", f"{WATCH}.metricCollectionStartTime")],
        ),
        (
            {**CLOUDWATCH, "dimensions": [{"name": "EndpointName", "value": "other"}]},
            [("cloudwatch-trigger", f"{WATCH}.dimensions")],
        ),
        (
            {**CLOUDWATCH, "dimensions": CLOUDWATCH["dimensions"][:1]},
            [("cloudwatch-trigger", f"{WATCH}.dimensions")],
        ),
    ],
)  # fmt: skip
def test_a_cloudwatch_trigger_keda_would_refuse_or_never_fire_is_refused_naming_its_key(
    trigger, found
):
    trigger = {k: v for k, v in trigger.items() if v is not None}
    assert codes({"maxReplicas": 2, "cloudWatch": trigger}) == found


def test_a_trigger_on_an_endpoint_with_no_sagemaker_endpoint_is_refused():
    scaling = {"maxReplicas": 2, "cloudWatch": CLOUDWATCH}
    assert codes(scaling, endpoint_name=None) == [("cloudwatch-trigger", f"{WATCH}.dimensions")]
    assert codes(scaling) == []
    assert codes({**scaling, "cloudWatch": {**CLOUDWATCH, "metricStat": "p99.9"}}) == []


def test_an_adopted_endpoints_cloudwatch_trigger_keda_refuses_is_a_warning():
    # As `hyp create` writes one given no metric: the live object's, KEDA refusing it already.
    scaling = {"maxReplicas": 5, "cloudWatch": {"metricStat": "Average"}}
    item = endpoint_item({"decode.autoscaling": scaling, "adopted": True})
    found = check_endpoint(EndpointSpec.model_validate(item))
    levels = {f.level for f in found if f.code == "cloudwatch-trigger"}
    assert levels == {"warning"}
    assert "decode.autoscaling.cloudWatch.namespace" in endpoint_problem(
        {"decode.autoscaling": scaling}, "decode.autoscaling.cloudWatch.namespace"
    )


def test_an_absurd_prometheus_target_is_refused_by_its_shape():
    with pytest.raises(ValidationError, match="target"):
        RoleAutoscaling.model_validate({"maxReplicas": 2, "metric": "waiting", "target": 1e308})


def test_min_above_max_is_refused_naming_min_replicas():
    assert codes({"minReplicas": 3, "maxReplicas": 2}) == [
        ("autoscaling-range", "decode.autoscaling.minReplicas")
    ]


def test_replicas_outside_the_range_are_refused():
    assert codes({"minReplicas": 2, "maxReplicas": 4}, replicas=1) == [
        ("replicas-outside-range", "decode.replicas")
    ]


def test_a_query_metric_needs_its_query_and_only_it_takes_one():
    assert codes({"maxReplicas": 2, "metric": "query", "target": 1}) == [
        ("autoscaling-query", "decode.autoscaling.query")
    ]
    assert codes({"maxReplicas": 2, "query": "up"}) == [
        ("autoscaling-query", "decode.autoscaling.query")
    ]


def test_a_named_metric_needs_its_target():
    assert codes({"maxReplicas": 2, "metric": "concurrent"}) == [
        ("autoscaling-target", "decode.autoscaling.target")
    ]


def test_a_running_target_at_or_above_max_num_seqs_is_never_reached():
    assert codes({"maxReplicas": 2, "metric": "running", "target": 48}) == [
        ("autoscaling-target-unreachable", "decode.autoscaling.target")
    ]
    assert codes({"maxReplicas": 2, "metric": "running", "target": 48}, max_num_seqs=64) == []


def test_a_query_prometheus_cannot_parse_is_refused():
    changes = {
        "prefill.autoscaling": {
            "minReplicas": 1,
            "maxReplicas": 1,
            "metric": "query",
            "query": "sum(rate(x[5m])",
            "target": 4,
        }
    }
    problem = endpoint_problem(changes, "prefill.autoscaling.query")
    assert "not valid PromQL (unclosed left parenthesis)" in problem


REFUSED_IN_ONE_LINE = {
    "an autoscaling query metric without its query": (
        "prefill",
        {"minReplicas": 1, "maxReplicas": 1, "metric": "query", "target": 10},
        "prefill.autoscaling.query: is required exactly when metric is `query` (the named "
        "metrics waiting, running, concurrent write their own)",
    ),
    "a PromQL query long enough to overflow the parser's stack": (
        "prefill",
        {
            "minReplicas": 1,
            "maxReplicas": 1,
            "metric": "query",
            "query": "sum(up) + " * 6000 + "1",
            "target": 10,
        },
        f"prefill.autoscaling.query: {('sum(up) + ' * 8)[:77] + '...'!r} is not valid PromQL "
        "(60,001 characters, more than the 4,096 any autoscaling query needs), and KEDA would "
        "pass it to Prometheus as written",
    ),
    "a workspace address with the trailing slash AMP's console shows": (
        "decode",
        {
            "maxReplicas": 2,
            "serverAddress": "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1/",
        },
        "decode.autoscaling.serverAddress: "
        "'https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1/' is not allowed; must "
        "be an Amazon Managed Prometheus workspace address such as "
        "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-0123abcd-4567-89ef-"
        "0123-456789abcdef, without a trailing '/'",
    ),
}


@pytest.mark.parametrize("case", REFUSED_IN_ONE_LINE)
def test_what_crashed_or_misled_is_one_line(case):
    role, autoscaling, line = REFUSED_IN_ONE_LINE[case]
    assert endpoint_problems(endpoint_item({f"{role}.autoscaling": autoscaling})) == [line]


def test_a_query_of_the_roles_own_series_passes():
    changes = {
        "prefill.autoscaling": {
            "minReplicas": 1,
            "maxReplicas": 1,
            "metric": "query",
            "query": 'sum by (pod) (rate(vllm:prompt_tokens_total{namespace="default"}[2m]))',
            "target": 4,
        }
    }
    assert endpoint_problems(endpoint_item(changes)) == []
