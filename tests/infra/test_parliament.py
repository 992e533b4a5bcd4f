"""parliament finds nothing unexplained in any IAM document of the dev and prod renders."""

import copy
import json

import pytest

from tests.parliament_review import unexplained_findings
from tests.support import dev_config, render

KEY = "arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab"


def kms_variant() -> dict:
    config = dev_config()
    config["hyperpod-dpd:buckets"] = {"kmsKeyArn": KEY}
    config["hyperpod-dpd:operator"] = {"gatedModels": True}
    return config


@pytest.fixture
def dev(dev_render):
    return dev_render.resources


def test_the_prod_render_passes_parliament(prod_render):
    assert unexplained_findings(prod_render.resources) == []


def test_a_render_with_a_bucket_key_and_gated_models_passes_parliament():
    assert unexplained_findings(render(kms_variant(), stack="kms").resources) == []


def test_the_dev_render_passes_parliament(dev):
    assert unexplained_findings(dev) == []


def test_a_write_policy_on_every_resource_fails(dev):
    resources = copy.deepcopy(dev)
    policy = next(
        r
        for r in resources
        if r.type.endswith(":RolePolicy") and r.name == "inference-operator-keda"
    )
    policy.inputs["policy"] = json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": "s3:PutObject", "Resource": "*"}],
        }
    )
    (finding,) = unexplained_findings(resources)
    assert finding.startswith("RolePolicy inference-operator-keda: RESOURCE_STAR")
