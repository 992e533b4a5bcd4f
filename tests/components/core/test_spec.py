"""The settings' shared base: numbers are numbers and switches are true or false, for every key
alike (issue 21, sections 1, 3 and 6)."""

import pytest

from tests.stack_changes import (
    EP,
    cli_refusal,
    cli_renders,
    dev_with,
    endpoint,
    gpu_group,
    refusal,
    role,
    setting,
)
from tests.support import endpoint_configs, render

SWITCHES = [
    ({key: value}, key, "must be true or false")
    for key in (
        "observability.enabled",
        "buckets.protect",
        "cluster.autoscaling.enabled",
        "endpoints[0].kvCache.enableL1Cache",
    )
    for value in ("yes", 1, 0, "off")
]


@pytest.mark.parametrize("changes, key, says", SWITCHES)
def test_a_switch_takes_true_or_false_only(changes, key, says):
    assert says in refusal(changes, key)


CLI_REFUSED = {
    "a whole number whose sizing would overflow a float": (
        endpoint(
            architecture={
                "layers": 2**100,
                "kvHeads": 8,
                "headDim": 128,
                "dtype": "bf16",
                "parameters": 70e9,
            }
        ),
        f"{EP}.architecture.layers: {float(2**100)} is not allowed; must be a number below 2^63",
    ),
    "a whole number beyond 64 bits, which Pulumi reads as a float": (
        endpoint(tensorParallelSize=2**70),
        f"{EP}.tensorParallelSize: {float(2**70)} is not allowed; must be a number below 2^63",
    ),
    "a switch written as a word": (
        setting("hyperpod-dpd:observability", {"enabled": "yes"}),
        "hyperpod-dpd:observability.enabled: 'yes' is not allowed; must be true or false",
    ),
    **{
        f"{name}: true": (
            change,
            f"{key}: true is not allowed; must be a number, not true or false",
        )
        for name, change, key in (
            ("tensorParallelSize", endpoint(tensorParallelSize=True), f"{EP}.tensorParallelSize"),
            ("replicas", role("decode", replicas=True), f"{EP}.decode.replicas"),
            ("gpus", role("prefill", gpus=True), f"{EP}.prefill.gpus"),
            (
                "instanceCount",
                gpu_group(instanceCount=True),
                "hyperpod-dpd:cluster.instanceGroups[0].instanceCount",
            ),
            (
                "gpuMemoryUtilization",
                endpoint(gpuMemoryUtilization=True),
                f"{EP}.gpuMemoryUtilization",
            ),
        )
    },
}


@pytest.mark.parametrize("case", CLI_REFUSED)
def test_a_number_or_switch_of_the_wrong_kind_is_one_line(tmp_path, capsys, case):
    change, line = CLI_REFUSED[case]
    assert cli_refusal(tmp_path, capsys, change) == [line]


CLI_VALID = {
    "a quoted tensorParallelSize, as every whole-number key takes": endpoint(
        tensorParallelSize="8"
    ),
    "a quoted instanceCount": gpu_group(instanceCount="2"),
}


def test_a_quoted_whole_number_renders(tmp_path):
    assert cli_renders(tmp_path, *CLI_VALID.values())


def test_switches_as_the_text_pulumi_reads_as_booleans_render():
    changes = {"observability.enabled": "true", "buckets.protect": "False"}
    assert endpoint_configs(render(dev_with(changes)))
