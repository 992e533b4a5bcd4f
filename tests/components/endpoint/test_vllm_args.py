from components.endpoint.vllm_args import flag_names, merge_role_args, split_flags

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
