"""The settings' shared base: numbers are numbers and switches are true or false, for every key
alike."""

import pytest

from tests.support import EP, GPU_GROUP, P, dev_with, problem_for, stack_problems

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
    assert says in problem_for(f"{P}:{key}", stack_problems(dev_with(changes)))


# Whole numbers past 64 bits as Pulumi hands them to the program: as floats.
REFUSED_IN_ONE_LINE = {
    "a whole number whose sizing would overflow a float": (
        {
            "endpoints[0].architecture": {
                "layers": float(2**100),
                "kvHeads": 8,
                "headDim": 128,
                "dtype": "bf16",
                "parameters": 70e9,
            }
        },
        f"{EP}.architecture.layers: {float(2**100)} is not allowed; must be a number below 2^63",
    ),
    "a whole number beyond 64 bits, which Pulumi reads as a float": (
        {"endpoints[0].tensorParallelSize": float(2**70)},
        f"{EP}.tensorParallelSize: {float(2**70)} is not allowed; must be a number below 2^63",
    ),
    "a switch written as a word": (
        {"observability.enabled": "yes"},
        "hyperpod-dpd:observability.enabled: 'yes' is not allowed; must be true or false",
    ),
    **{
        f"{key}: true": (
            {key: True},
            f"{P}:{key}: true is not allowed; must be a number, not true or false",
        )
        for key in (
            "endpoints[0].tensorParallelSize",
            "endpoints[0].decode.replicas",
            "endpoints[0].prefill.gpus",
            f"{GPU_GROUP}.instanceCount",
            "endpoints[0].gpuMemoryUtilization",
        )
    },
}


@pytest.mark.parametrize("case", REFUSED_IN_ONE_LINE)
def test_a_number_or_switch_of_the_wrong_kind_is_one_line(case):
    changes, line = REFUSED_IN_ONE_LINE[case]
    assert stack_problems(dev_with(changes)) == [line]


@pytest.mark.parametrize(
    "changes",
    [
        # A quoted whole number, as every whole-number key takes.
        {"endpoints[0].tensorParallelSize": "8"},
        {f"{GPU_GROUP}.instanceCount": "2"},
        # Switches as the text Pulumi reads as booleans.
        {"observability.enabled": "true", "buckets.protect": "False"},
    ],
)
def test_quoted_numbers_and_switches_as_text_pass(changes):
    assert stack_problems(dev_with(changes)) == []
