import pytest

from components.endpoint.vllm_args import (
    canonical_flag,
    flag_names,
    holds_several_arguments,
    merge_role_args,
    split_flags,
)

WORKER = ["--model", "/opt/ml/model", "--port", "8000", "--gpu-memory-utilization", "0.75"]


def test_a_role_flag_present_in_worker_args_takes_the_role_value_in_place():
    merged = merge_role_args(WORKER, ["--gpu-memory-utilization", "0.6"])
    assert merged == [
        "--model",
        "/opt/ml/model",
        "--port",
        "8000",
        "--gpu-memory-utilization",
        "0.6",
    ]


def test_role_flags_absent_from_worker_args_are_appended_in_order():
    merged = merge_role_args(WORKER, ["--max-num-seqs", "16", "--enforce-eager"])
    assert merged == [*WORKER, "--max-num-seqs", "16", "--enforce-eager"]


def test_no_role_args_leaves_worker_args_unchanged():
    assert merge_role_args(WORKER, []) == WORKER


def test_equals_form_and_boolean_flags_are_one_flag_each():
    assert split_flags(["--a=1", "--b", "--c", "x", "y"]) == [
        ("--a", ("--a=1",)),
        ("--b", ("--b",)),
        ("--c", ("--c", "x", "y")),
    ]


def test_an_equals_form_role_flag_replaces_the_spaced_worker_flag():
    merged = merge_role_args(["--port", "8000", "--x", "1"], ["--port=9000"])
    assert merged == ["--port=9000", "--x", "1"]


def test_tokens_before_the_first_flag_are_kept():
    assert merge_role_args(["serve", "--x", "1"], ["--x", "2"]) == ["serve", "--x", "2"]


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
