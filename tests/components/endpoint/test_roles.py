from typing import Any

import pytest

from components.endpoint.roles import check_role_gpus, check_topology
from components.endpoint.spec import EndpointSpec
from tests.components.endpoint.test_manifest import MINIMAL
from tests.support import by_code


def codes(**changes: Any) -> dict[str, list[tuple[str, str]]]:
    spec = EndpointSpec.model_validate({**MINIMAL, **changes})
    roles = {"prefill": spec.prefill, "decode": spec.decode}
    return by_code(
        check_role_gpus(roles, spec.tensor_parallel_size, spec.instance_type)
        + check_topology(spec.topology_spec)
    )


@pytest.mark.parametrize(
    "changes, code, level, field",
    [
        ({"prefill": {"gpus": 9}}, "gpus-exceed-node", "error", "prefill.gpus"),
        ({"decode": {"gpus": 4}}, "gpus-below-tp", "error", "decode.gpus"),
        ({"tensorParallelSize": 4}, "gpus-idle", "warning", "prefill.gpus"),
        ({"topologySpec": {"sameAZ": False}}, "dpd-across-azs", "error", "topologySpec.sameAZ"),
    ],
)
def test_each_rule_reports_its_setting(changes, code, level, field):
    assert (level, field) in codes(**changes)[code]


def test_a_tensor_parallel_size_beyond_one_node_is_the_size_to_change_not_the_gpus():
    spec = EndpointSpec.model_validate(
        {**MINIMAL, "instanceType": "ml.g5.8xlarge", "serving": {"gpus": 1}}
    )
    (found,) = check_role_gpus({"serving": spec.serving}, 8, spec.instance_type)
    assert (found.code, found.field) == ("tp-exceeds-node", "tensorParallelSize")
    assert found.message.endswith("has (1); allowed 1")


@pytest.mark.parametrize(
    "changes, code",
    [
        ({"prefill": {"gpus": 8}, "decode": {"gpus": 8}}, "gpus-below-tp"),
        ({"tensorParallelSize": 8}, "gpus-idle"),
        ({"topologySpec": {"sameAZ": True}}, "dpd-across-azs"),
    ],
)
def test_each_rule_stays_quiet_when_the_settings_are_right(changes, code):
    assert code not in codes(**changes)
