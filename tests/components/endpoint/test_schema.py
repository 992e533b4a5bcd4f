"""The committed schema is the operator's CRD, and it is as strict as the API server."""

import copy
import json

import pytest
import yaml

from components.endpoint.schema import SCHEMA_PATH, schema_errors
from infra.paths import ROOT
from scripts.derive_crd_schema import derive
from tests.support import FIXTURES

CRD = (
    ROOT.parent
    / "shared"
    / "crds"
    / "operator-3.2"
    / "inference.sagemaker.aws.amazon.com_inferenceendpointconfigs.yaml"
)


def documented() -> dict:
    example = yaml.safe_load((FIXTURES / "documented_example.yaml").read_text())
    example["spec"]["modelSourceConfig"]["s3Storage"] = {"bucketName": "b", "region": "r"}
    return example


@pytest.mark.skipif(not CRD.exists(), reason="the operator's CRD is not beside this checkout")
def test_the_committed_schema_is_what_the_script_derives_from_the_crd():
    assert json.loads(SCHEMA_PATH.read_text()) == derive(yaml.safe_load(CRD.read_text()))


def test_the_documented_example_passes():
    assert schema_errors(documented()) == []


@pytest.mark.parametrize(
    "path", [["spec"], ["spec", "pdSpec"], ["spec", "worker"], ["spec", "pdSpec", "decodingSpec"]]
)
def test_unknown_fields_are_rejected_at_any_depth(path):
    manifest = documented()
    target = manifest
    for key in path:
        target = target[key]
    target["surprise"] = True
    assert schema_errors(manifest) == [
        (".".join(path), "Additional properties are not allowed ('surprise' was unexpected)")
    ]


@pytest.mark.parametrize(
    "path, value, says",
    [
        (["spec", "pdSpec", "routingThreshold"], -1, "less than the minimum of 0"),
        (["spec", "pdSpec", "prefillSpec", "replicas"], 0, "less than the minimum of 1"),
        (["spec", "intelligentRoutingSpec", "routingStrategy"], "random", "is not one of"),
        (["spec", "instanceType"], "p5.48xlarge", "does not match"),
        (["spec", "worker", "modelInvocationPort"], {}, "'containerPort' is a required property"),
    ],
)
def test_types_bounds_enums_patterns_and_required_fields_hold(path, value, says):
    manifest = copy.deepcopy(documented())
    target = manifest
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    ((_, message),) = schema_errors(manifest)
    assert says in message


def test_the_worker_is_required():
    manifest = documented()
    del manifest["spec"]["worker"]
    assert schema_errors(manifest) == [("spec", "'worker' is a required property")]
