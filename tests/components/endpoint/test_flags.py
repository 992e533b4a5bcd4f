"""How vLLM reads a command line."""

import pytest

from components.endpoint.flags import (
    canonical_flag,
    flag_names,
    holds_several_arguments,
    split_flags,
)


def test_equals_form_and_boolean_flags_are_one_flag_each():
    assert split_flags(["--a=1", "--b", "--c", "x", "y"]) == [
        ("--a", ("--a=1",)),
        ("--b", ("--b",)),
        ("--c", ("--c", "x", "y")),
    ]


def test_flag_names_lists_flags_only():
    assert flag_names(["serve", "--x", "1", "--y=2", "--z"]) == ["--x", "--y", "--z"]


@pytest.mark.parametrize(
    "name, read_as",
    [
        ("--max_model_len", "--max-model-len"),
        ("--max-model-len", "--max-model-len"),
        ("--kv_transfer_config.kv_role", "--kv-transfer-config"),
        ("--hf-overrides.rope_scaling", "--hf-overrides"),
        ("-tp", "--tensor-parallel-size"),
        ("-pp", "--pipeline-parallel-size"),
        ("-dp", "--data-parallel-size"),
        ("-O3", "--compilation-config"),
        ("-x", "-x"),
    ],
)
def test_a_flag_is_read_as_vllm_reads_it(name, read_as):
    assert canonical_flag(name) == read_as


def test_short_options_own_their_values_and_negative_numbers_are_values():
    assert split_flags(["-tp", "4", "--max-model-len", "-1"]) == [
        ("-tp", ("-tp", "4")),
        ("--max-model-len", ("--max-model-len", "-1")),
    ]


@pytest.mark.parametrize(
    "token, several",
    [
        ("--enable-prefix-caching --block-size 32", True),
        ("32 --enforce-eager", True),
        ("-tp 4", True),
        ("--x=1 --y", True),
        ("--block-size", False),
        ("32", False),
        ('--compilation-config={"level": 3, "note": "a --b"}', False),
        ('{"kv_connector": "x --y"}', False),
        ("--served-model-name=llama 70b", False),
        ("answer briefly -please", False),
    ],
)
def test_a_whole_command_line_in_one_item_is_recognised(token, several):
    assert holds_several_arguments(token) is several
