"""The DPD guardrails on an InferenceEndpointConfig's spec, shared with the policy pack."""

import pytest

from components.cluster.instance_types import DPD_INSTANCE_TYPES
from components.endpoint.guardrails import endpoint_violations
from tests.components.endpoint.test_manifest import manifest


def dpd_spec() -> dict:
    return manifest()["spec"]


def with_environment(spec: dict, **variables: str | None) -> dict:
    """`spec` with these variables set, or removed where None."""
    env = [v for v in spec["worker"]["environmentVariables"] if v["name"] not in variables]
    env += [{"name": k, "value": v} for k, v in variables.items() if v is not None]
    spec["worker"]["environmentVariables"] = env
    return spec


def test_the_manifest_the_program_builds_keeps_every_guardrail():
    assert endpoint_violations(dpd_spec()) == []


def test_an_instance_type_without_dpd_is_refused_listing_those_with_it():
    spec = {**dpd_spec(), "instanceType": "ml.g5.48xlarge"}
    assert endpoint_violations(spec) == [
        "instanceType: 'ml.g5.48xlarge' is not allowed; DPD runs only on "
        + ", ".join(DPD_INSTANCE_TYPES)
    ]


def test_a_dpd_endpoint_must_name_one_instance_type():
    spec = dpd_spec()
    spec["instanceTypes"] = [spec.pop("instanceType")]
    (violation,) = endpoint_violations(spec)
    assert violation.startswith("instanceType: is not set; DPD runs only on ml.p5.48xlarge")


@pytest.mark.parametrize(
    "variables, violation",
    [
        (
            {"PD_BUFFER_SIZE": None},
            "worker.environmentVariables: PD_BUFFER_SIZE is not set; DPD needs the decoder's "
            "buffer for incoming KV, in bytes per tensor-parallel rank",
        ),
        (
            {"PYTHONHASHSEED": None},
            "worker.environmentVariables: PYTHONHASHSEED is not set; DPD needs PYTHONHASHSEED=0",
        ),
        (
            {"PYTHONHASHSEED": "random"},
            "worker.environmentVariables: PYTHONHASHSEED is 'random'; DPD needs PYTHONHASHSEED=0",
        ),
        (
            {"LMCACHE_SAVE_DECODE_CACHE": "True"},
            "worker.environmentVariables: LMCACHE_SAVE_DECODE_CACHE is 'True'; "
            "DPD needs LMCACHE_SAVE_DECODE_CACHE=False",
        ),
    ],
)
def test_each_dpd_variable_must_be_there_with_its_value(variables, violation):
    assert endpoint_violations(with_environment(dpd_spec(), **variables)) == [violation]


def test_a_spec_without_any_environment_lacks_all_three():
    spec = dpd_spec()
    del spec["worker"]["environmentVariables"]
    assert len(endpoint_violations(spec)) == 3


def test_an_endpoint_without_pd_spec_is_not_dpd_and_not_checked():
    spec = {**dpd_spec(), "instanceType": "ml.g5.48xlarge"}
    del spec["pdSpec"]
    assert endpoint_violations(spec) == []
