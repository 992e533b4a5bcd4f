"""The committed schema is the operator's CRD, and it is as strict as the API server."""

import copy
import json

import pytest
import yaml

from components.endpoint.schema import (
    SCHEMA_OPERATORS,
    schema_errors,
    schema_operator,
    schema_path,
)
from infra.paths import ROOT
from scripts.derive_crd_schema import derive
from tests.support import FIXTURES

CRDS = ROOT.parent / "shared" / "crds"


def crd(operator: str) -> dict:
    path = (
        CRDS
        / f"operator-{operator}"
        / "inference.sagemaker.aws.amazon.com_inferenceendpointconfigs.yaml"
    )
    # libyaml: the same values as yaml.safe_load, ten times faster on the CRD's 450 KB.
    return yaml.load(path.read_text(), Loader=yaml.CSafeLoader)


def documented() -> dict:
    example = yaml.safe_load((FIXTURES / "documented_example.yaml").read_text())
    example["spec"]["modelSourceConfig"]["s3Storage"] = {"bucketName": "b", "region": "r"}
    return example


@pytest.mark.skipif(not CRDS.exists(), reason="the operator's CRDs are not beside this checkout")
@pytest.mark.parametrize("operator", SCHEMA_OPERATORS)
def test_each_committed_schema_is_what_the_script_derives_from_its_operators_crd(operator):
    assert json.loads(schema_path(operator).read_text()) == derive(crd(operator), operator)


@pytest.mark.parametrize(
    "operator, schema", [("3.2", "3.2"), ("3.3", "3.3"), ("3.3.1", "3.3"), ("3.4", "3.3")]
)
def test_an_operator_is_held_to_the_newest_schema_not_newer_than_it(operator, schema):
    assert schema_operator(operator) == schema


@pytest.mark.parametrize(
    "field, path",
    [
        ({"loadBalancer": {"idleTimeoutSeconds": 300}}, "spec.loadBalancer"),
        ({"modelCacheConfig": {}}, "spec"),
    ],
)
def test_fields_operator_3_3_added_are_refused_by_the_3_2_schema(field, path):
    manifest = documented()
    manifest["spec"] |= field
    assert schema_errors(manifest, "3.3") == []
    ((where, message),) = schema_errors(manifest, "3.2")
    assert (where, message.split(" (")[0]) == (path, "Additional properties are not allowed")


def test_the_documented_example_passes():
    assert schema_errors(documented(), "3.3") == []


@pytest.mark.parametrize(
    "path", [["spec"], ["spec", "pdSpec"], ["spec", "worker"], ["spec", "pdSpec", "decodingSpec"]]
)
def test_unknown_fields_are_rejected_at_any_depth(path):
    manifest = documented()
    target = manifest
    for key in path:
        target = target[key]
    target["surprise"] = True
    assert schema_errors(manifest, "3.3") == [
        (".".join(path), "Additional properties are not allowed ('surprise' was unexpected)")
    ]


@pytest.mark.parametrize(
    "path, value, says",
    [
        (["spec", "pdSpec", "routingThreshold"], -1, "less than the minimum of 0"),
        (["spec", "pdSpec", "prefillSpec", "replicas"], 0, "less than the minimum of 1"),
        (["spec", "intelligentRoutingSpec", "routingStrategy"], "random", "is not one of"),
        (["spec", "instanceType"], "p5.48xlarge", "is not a SageMaker instance type such as"),
        (
            ["spec", "worker", "resources", "limits", "cpu"],
            "lots",
            "'lots' is not a Kubernetes quantity such as 500m, 4 or 16Gi",
        ),
        (["spec", "worker", "modelInvocationPort"], {}, "'containerPort' is a required property"),
    ],
)
def test_types_bounds_enums_patterns_and_required_fields_hold(path, value, says):
    manifest = copy.deepcopy(documented())
    target = manifest
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    ((_, message),) = schema_errors(manifest, "3.3")
    assert says in message


def test_the_worker_is_required():
    manifest = documented()
    del manifest["spec"]["worker"]
    assert schema_errors(manifest, "3.3") == [("spec", "'worker' is a required property")]
