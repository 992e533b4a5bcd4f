"""Stack files are handed to the program the way the Pulumi CLI hands them over."""

from tools.render.stack_config import SECRET_PLACEHOLDER, to_stack_config


def test_keys_are_namespaced_by_project_and_values_are_cli_strings():
    config = to_stack_config(
        {
            "endpoints": [{"name": "a"}],
            "aws:region": "us-east-1",
            "hyperpod-dpd:flag": True,
            "hyperpod-dpd:count": 3,
        }
    )
    assert config.values["hyperpod-dpd:endpoints"] == '[{"name": "a"}]'
    assert config.values["aws:region"] == "us-east-1"
    assert config.values["hyperpod-dpd:flag"] == "true"
    assert config.values["hyperpod-dpd:count"] == "3"


def test_encrypted_values_become_a_marked_placeholder():
    config = to_stack_config(
        {
            "hfToken": {"secure": "v1:abc"},
            "nested": {"a": [{"secure": "v1:def"}], "b": 1},
            "plain": "x",
        }
    )
    assert config.values["hyperpod-dpd:hfToken"] == SECRET_PLACEHOLDER
    assert config.values["hyperpod-dpd:nested"] == '{"a": ["[secret]"], "b": 1}'
    assert config.secret_keys == ["hyperpod-dpd:hfToken", "hyperpod-dpd:nested"]
