"""What pydantic refuses, said as one readable line naming the key, through the command line."""

import pytest

from tests.stack_changes import cli_refusal, endpoint, env, setting
from tests.support import EP, dev_config, problems

CLI_REFUSED = {
    "a very long value, cut to keep one readable line": (
        endpoint(routingStrategy="x" * 5000),
        f"{EP}.routingStrategy: '{'x' * 79}... (5,000 characters) is not allowed; must be "
        "'prefixaware', 'kvaware', 'session' or 'roundrobin'",
    ),
    "a whole number beyond 64 bits, which Pulumi hands over as a float": (
        endpoint(tensorParallelSize=2**70),
        f"{EP}.tensorParallelSize: {float(2**70)} is not allowed; must be a number below 2^63",
    ),
    "endpoints that are not a list": (
        setting("hyperpod-dpd:endpoints", {"name": "x"}),
        "hyperpod-dpd:endpoints: must be a list",
    ),
    "a list where a mapping goes": (
        endpoint(prefill=[1]),
        f"{EP}.prefill: must be a mapping of settings (replicas, gpus, maxNumSeqs, "
        "gpuMemoryUtilization, args, nodeSelector, autoscaling)",
    ),
    "null for a list": (
        setting(
            "hyperpod-dpd:network",
            {**dev_config()["hyperpod-dpd:network"], "availabilityZoneIds": None},
        ),
        "hyperpod-dpd:network.availabilityZoneIds: null is not allowed; must be a list",
    ),
    "a mapping where a setting's mapping of other keys goes, answered with those keys": (
        setting("hyperpod-dpd:operator", {"installed": "v1.3.0-eksbuild.1"}),
        "hyperpod-dpd:operator.installed: 'v1.3.0-eksbuild.1' is not allowed; must be a mapping "
        "of settings (operatorVersion, addonVersion)",
    ),
    "a boolean where text goes": (
        env("ENABLE_FEATURE", True),
        f"{EP}.environmentVariables.ENABLE_FEATURE: true is not allowed; must be text (quote it)",
    ),
}


@pytest.mark.parametrize("case", CLI_REFUSED)
def test_a_refusal_says_what_is_wrong(tmp_path, capsys, case):
    change, line = CLI_REFUSED[case]
    assert cli_refusal(tmp_path, capsys, change) == [line]


def test_a_key_holding_a_newline_and_escapes_is_refused_in_one_line(tmp_path, capsys):
    key = "maxModelLen\n\x1b[1A\x1b[2Khyperpod-dpd:endpoints[0]: fine"
    (line,) = cli_refusal(tmp_path, capsys, endpoint(**{key: 1}))
    assert line.startswith(
        f"{EP}.maxModelLen\\n\\x1b[1A\\x1b[2Khyperpod-dpd:endpoints[0]: fine: is not a known "
        "setting; allowed keys: name, "
    )


def test_a_wrong_key_is_one_line_and_none_more_for_a_default_read_from_it():
    # An endpoint's workerResources default is read from its instanceType, so it is not made.
    config = dev_config()
    config["hyperpod-dpd:endpoints"][0]["instanceType"] = "ml.p9.48xlarge"
    (line,) = problems(config)
    assert line.startswith(f"{EP}.instanceType: 'ml.p9.48xlarge' is not allowed")
