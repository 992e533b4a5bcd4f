"""The pack as the Pulumi CLI runs it: `python -m pulumi.policy` in the pack's folder, serving the
analyzer over gRPC. Asking it what it enforces, or to analyze resources, needs no engine."""

import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from google.protobuf import empty_pb2, struct_pb2
from pulumi.runtime import proto

from policy.policies import ENDPOINT, RULE_TYPES
from policy.tests.stack import dev_stack, in_preview, one, without

PACK = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def analyzer():
    # What the CLI's pulumi-analyzer-policy-python runs; the engine address goes unused here.
    pack = subprocess.Popen(
        [sys.executable, "-u", "-m", "pulumi.policy", "127.0.0.1:0", "."],
        cwd=PACK,
        stdout=subprocess.PIPE,
        text=True,
    )
    port = pack.stdout.readline().strip()
    assert port.isdigit(), f"the pack exited with status {pack.wait()} instead of serving"
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        yield proto.AnalyzerStub(channel)
    pack.terminate()
    pack.wait()


def inputs(resource: dict) -> struct_pb2.Struct:
    properties = struct_pb2.Struct()
    properties.update(resource["inputs"])
    return properties


def analyze(analyzer, resource: dict) -> list:
    request = proto.AnalyzeRequest(
        type=resource["type"],
        properties=inputs(resource),
        urn=resource["urn"],
        name=resource["name"],
    )
    return list(analyzer.Analyze(request).diagnostics)


def analyze_stack(analyzer, resources: list[dict]) -> list:
    request = proto.AnalyzeStackRequest(
        resources=[
            proto.AnalyzerResource(
                type=r["type"],
                properties=inputs(r),
                urn=r["urn"],
                name=r["name"],
                options=proto.AnalyzerResourceOptions(protect=r["protect"]),
                propertyDependencies={
                    key: proto.AnalyzerPropertyDependencies(urns=urns)
                    for key, urns in r["propertyDependencies"].items()
                },
            )
            for r in resources
        ]
    )
    return list(analyzer.AnalyzeStack(request).diagnostics)


def test_the_pack_enforces_every_policy_as_mandatory(analyzer):
    info = analyzer.GetAnalyzerInfo(empty_pb2.Empty())
    assert info.name == "hyperpod-dpd"
    assert {p.name: p.enforcementLevel for p in info.policies} == {
        "dpd-endpoint-instance-and-env": proto.MANDATORY,
        "efa-self-rules": proto.MANDATORY,
        "buckets-encrypted-private": proto.MANDATORY,
        "inference-operator-minimum": proto.MANDATORY,
        "model-bucket-kept": proto.MANDATORY,
        "no-world-ingress": proto.MANDATORY,
        "eks-endpoint-not-world-by-default": proto.MANDATORY,
    }


def test_the_preview_of_the_dev_stack_raises_nothing(analyzer):
    # A policy that read an unknown value would come back as an advisory diagnostic.
    stack = in_preview(dev_stack())
    assert analyze_stack(analyzer, stack) == []
    assert [d for r in stack for d in analyze(analyzer, r)] == []


def test_the_pack_refuses_an_endpoint_off_the_dpd_instance_types(analyzer):
    endpoint = one(dev_stack(), ENDPOINT, "default/dpd-test")
    endpoint["inputs"]["spec"]["instanceType"] = "ml.g5.48xlarge"
    (diagnostic,) = analyze(analyzer, endpoint)
    assert diagnostic.policyName == "dpd-endpoint-instance-and-env"
    assert diagnostic.enforcementLevel == proto.MANDATORY
    assert "spec.instanceType: 'ml.g5.48xlarge' is not allowed" in diagnostic.message


def test_in_a_preview_the_pack_finds_a_missing_self_egress_rule(analyzer):
    stack = in_preview(without(dev_stack(), RULE_TYPES["egress"], "efa-egress-any-all-self"))
    (diagnostic,) = analyze_stack(analyzer, stack)
    assert diagnostic.policyName == "efa-self-rules"
    assert diagnostic.enforcementLevel == proto.MANDATORY
    assert "security group 'efa' has no egress rule" in diagnostic.message
