"""The render's report: each endpoint read from its manifest as an adopted object may have it
(no instanceType, no replicas, no routing strategy, no DPD buffer variable), and the warnings."""

from pathlib import Path

from tools.render.render import RenderResult
from tools.render.render_report import _endpoint_lines, report

METADATA = {"name": "chat", "namespace": "team", "labels": {"hyperpod-dpd/endpoint": "chat"}}
WORKER = {"args": ["/opt/ml/model", "--tensor_parallel_size", "4"], "resources": {}}


def lines(**spec) -> list[str]:
    return _endpoint_lines(
        {"metadata": METADATA, "spec": {"modelName": "m", "worker": WORKER, **spec}}
    )


def test_pods_placed_by_a_preference_list_or_an_affinity_are_said_so():
    assert (
        "on ml.g6e.2xlarge or ml.g5.2xlarge"
        in lines(instanceTypes=["ml.g6e.2xlarge", "ml.g5.2xlarge"])[0]
    )
    assert "on the nodes its nodeAffinity picks" in lines(nodeAffinity={"x": 1})[0]
    assert "on any GPU node" in lines()[0]


def test_a_colocated_object_without_router_is_reached_by_its_sagemaker_endpoint_or_pods():
    summary = lines(endpointName="chat-sm")
    assert summary[2] == "    aggregated: serving 1x0 GPU, at most 0 GPUs, TP 4"
    assert (
        summary[3]
        == "    no router: reached through its SageMaker endpoint chat-sm or its pods (app=chat)"
    )
    off = lines(intelligentRoutingSpec={"enabled": False, "routingStrategy": "prefixaware"})
    assert off[3] == "    no router: reached through its pods (app=chat)"


def test_a_dpd_object_leaving_its_defaults_to_the_operator():
    role = {"resources": {"limits": {"nvidia.com/gpu": 8}}}
    summary = lines(
        instanceType="ml.p5.48xlarge", pdSpec={"prefillSpec": role, "decodingSpec": role}
    )
    assert summary[2] == (
        "    prefill 1x8 GPU, decode 1x8 GPU, at most 16 GPUs, TP 4, routingThreshold 4096, "
        "prefixaware, PD buffer the operator default"
    )


def test_the_summary_shows_five_warnings_a_line_each_and_says_where_the_rest_are():
    warnings = [f"hyperpod-dpd:endpoints[{i}].workload: " + "too slow " * 30 for i in range(7)]
    result = RenderResult("dev", [], {}, warnings)
    summary = report(result, [], None, [], [], Path("build/dev/plan.md"))
    shown = [line for line in summary if line.startswith("  hyperpod-dpd:")]
    assert [line[:35] for line in shown] == [f"  {w[:33]}" for w in warnings[:5]]
    assert all(len(line) <= 160 and line.endswith(" ...") for line in shown)
    assert "  2 more, and each in full, in build/dev/plan.md" in summary
    # The render in full, as plan.md keeps it, has each whole.
    assert [f"  {w}" for w in warnings] == report(result, [], None, [], [])[-7:]
