"""checkov passes the dev and prod renders, skipping only what SKIPS explains, and the bench Job;
it fails a render with a public bucket or a write policy on every resource."""

import contextlib
import copy
import dataclasses
import io
import json

import pytest

from tests.checkov_scan import KUBERNETES_SKIPS, SKIPS, Findings, scan
from tools.cli import main
from tools.render.render import RenderResult

PRIVILEGED_POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "privileged", "namespace": "default"},
    "spec": {
        "containers": [
            {"name": "c", "image": "busybox:1.36", "securityContext": {"privileged": True}}
        ]
    },
}


def broken(dev: RenderResult) -> RenderResult:
    """The dev render with the access-log bucket made public, the KEDA role writing to any S3
    object, and a privileged pod among its Kubernetes objects."""
    resources = copy.deepcopy(dev.resources)
    for resource in resources:
        if resource.type.endswith(":BucketPublicAccessBlock") and resource.name == "access-logs":
            resource.inputs.update(
                {flag: False for flag in ("blockPublicAcls", "blockPublicPolicy",
                                          "ignorePublicAcls", "restrictPublicBuckets")}
            )  # fmt: skip
        if resource.type.endswith(":RolePolicy") and resource.name == "inference-operator-keda":
            resource.inputs["policy"] = json.dumps(
                {
                    "Version": "2012-10-17",
                    "Statement": [{"Effect": "Allow", "Action": "s3:PutObject", "Resource": "*"}],
                }
            )
    endpoint = next(r for r in resources if r.type.startswith("kubernetes:inference"))
    pod = dataclasses.replace(
        endpoint, type="kubernetes:core/v1:Pod", urn=endpoint.urn + "-pod", inputs=PRIVILEGED_POD
    )
    return RenderResult(dev.stack, [*resources, pod], dev.outputs)


def bench_job() -> str:
    """The Job `hyperpod-dpd bench` prints for the dev stack's endpoint, to apply."""
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        status = main(["bench", "--endpoint", "dpd-test", "--account-id", "111122223333"])
    assert status == 0
    return printed.getvalue()


@pytest.fixture(scope="module")
def scanned(tmp_path_factory, dev_render, prod_render):
    renders = {"dev": dev_render, "prod": prod_render, "broken": broken(dev_render)}
    return scan(renders, tmp_path_factory.mktemp("checkov"), {"bench": bench_job()})


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_the_template_passes_checkov_but_for_the_explained_skips(scanned, stack):
    findings = scanned[stack]["cloudformation"]
    assert findings.failed == []
    assert findings.parsing_errors == []
    assert sorted(findings.skipped) == sorted((s.check, s.resource, s.reason) for s in SKIPS)
    assert len(findings.passed) > 100


@pytest.mark.parametrize("stack", ["dev", "prod"])
def test_the_kubernetes_manifests_pass_checkov(scanned, stack):
    # The renders' objects are an InferenceEndpointConfig (a kind checkov has no checks for)
    # and namespaces: the pods are the operator's, at run time.
    findings = scanned[stack].get("kubernetes", Findings())
    assert findings.failed == [] and findings.parsing_errors == []
    reasons = {(s.check, s.reason) for s in KUBERNETES_SKIPS}
    assert {(check, reason) for check, _, reason in findings.skipped} <= reasons


def test_the_bench_job_passes_checkov_skipping_only_what_it_explains(scanned):
    # The Job carries its own skips, each with its reason (tools/bench/job.py).
    findings = scanned["bench"]["kubernetes"]
    assert findings.passed
    assert (findings.failed, findings.parsing_errors) == ([], [])
    assert all(reason for _, _, reason in findings.skipped)


def test_prod_needs_no_kubernetes_skip(scanned):
    assert scanned["prod"].get("kubernetes", Findings()).skipped == []


def test_a_privileged_pod_fails_checkov(scanned):
    assert ("CKV_K8S_16", "privileged") in scanned["broken"]["kubernetes"].failed


def test_a_public_bucket_fails_checkov(scanned):
    failed = scanned["broken"]["cloudformation"].failed
    public_access = {"CKV_AWS_53", "CKV_AWS_54", "CKV_AWS_55", "CKV_AWS_56"}
    assert public_access <= {check for check, resource in failed if resource == "AccessLogsBucket"}


def test_a_write_policy_on_every_resource_fails_checkov(scanned):
    failed = scanned["broken"]["cloudformation"].failed
    assert ("CKV_AWS_111", "InferenceOperatorKedaRole") in failed
