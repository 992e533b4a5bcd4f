"""specOverrides: what they may add, and what the settings own."""

from typing import Any

import pytest

from components.endpoint.overrides import AGGREGATED_FIELDS, DPD_FIELDS, check_overrides
from tests.components.endpoint.items import endpoint_item, endpoint_problem, endpoint_problems
from tests.components.endpoint.test_manifest import spec


@pytest.mark.parametrize(
    "field, mode",
    [(field, {}) for field in DPD_FIELDS]
    + [(field, {"serving": {}}) for field in AGGREGATED_FIELDS],
)
def test_an_override_of_an_owned_field_is_refused_naming_it(field, mode):
    overrides: dict[str, Any] = {}
    node = overrides
    *parents, last = field.split(".")
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = "anything"
    (finding,) = check_overrides(spec(specOverrides=overrides, **mode))
    assert (finding.level, finding.code, finding.field) == (
        "error",
        "override-of-typed-field",
        f"specOverrides.{field}",
    )


def test_a_credential_anywhere_in_the_overrides_is_refused_naming_its_path():
    token = "hf_" + "abcdefghijklmnopq" * 2
    overrides = {"dataCapture": {"modelPod": {"kmsKeyId": token}}}
    (finding,) = check_overrides(spec(specOverrides=overrides))
    assert (finding.code, finding.field) == (
        "credential-in-overrides",
        "specOverrides.dataCapture.modelPod.kmsKeyId",
    )
    assert token not in finding.message


def test_an_override_of_what_no_setting_describes_passes():
    overrides = {"intelligentRoutingSpec": {"autoScalingSpec": {"maxReplicaCount": 3}}}
    assert check_overrides(spec(specOverrides=overrides)) == []


REFUSED = [
    (
        {"specOverrides": {"pdSpec": {"topologySpec": {"sameAZ": False}}}},
        "specOverrides.pdSpec.topologySpec",
        "setting topologySpec",
    ),
    (
        {"specOverrides": {"pdSpec": {"prefillSpec": {"args": ["-tp", "4"]}}}},
        "specOverrides.pdSpec.prefillSpec.args",
        "setting prefill",
    ),
    (
        {"specOverrides": {"instanceTypes": ["ml.p5.48xlarge"]}},
        "specOverrides.instanceTypes",
        "setting instanceTypes",
    ),
    (
        {"specOverrides": {"worker": {"modelInvocationPort": {"containerPort": 9000}}}},
        "specOverrides.worker.modelInvocationPort",
        "described by the setting modelInvocationPort",
    ),
    # Another region's certificate, past the check that it is in the stack's.
    (
        {
            "specOverrides": {
                "tlsConfig": {
                    "customCertificateConfig": {
                        "acmArn": "arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d",
                        "domainName": "chat.example.com",
                    }
                }
            }
        },
        "specOverrides.tlsConfig.customCertificateConfig",
        "described by the setting tlsConfig.customCertificateConfig",
    ),
    # Certificates written to another bucket, past the check of the bucket's name.
    (
        {"specOverrides": {"tlsConfig": {"tlsCertificateOutputS3Uri": "s3://elsewhere/certs"}}},
        "specOverrides.tlsConfig.tlsCertificateOutputS3Uri",
        "described by the setting tlsConfig.tlsCertificateOutputS3Uri",
    ),
    # A colocated autoscaler of 1,000 replicas beside pdSpec, past the capacity checks.
    (
        {"specOverrides": {"autoScalingSpec": {"minReplicaCount": 1, "maxReplicaCount": 1000}}},
        "specOverrides.autoScalingSpec",
        "described by the setting prefill.autoscaling and decode.autoscaling",
    ),
    # A command running tensor-parallel 2, past the GPU requests and the KV sizing.
    (
        {"specOverrides": {"worker": {"command": ["vllm", "serve", "/opt/ml/model", "-tp", "2"]}}},
        "specOverrides.worker.command",
        "described by the setting command",
    ),
]


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_an_override_of_what_a_setting_or_the_operator_owns_is_refused(changes, key, says):
    assert says in endpoint_problem(changes, key)


VALID = [
    {"specOverrides": {"dnsConfig": {"hostedZoneId": "Z0123456789ABC"}}},
    {"specOverrides": {"maxDeployTimeInSeconds": 7200}},
]


@pytest.mark.parametrize("case", VALID)
def test_overrides_of_what_no_setting_describes_render(case):
    assert endpoint_problems(endpoint_item(case)) == []
