"""The policy pack's tests run against today's dev stack, not an old copy of it."""

import json

from scripts.policy_fixture import FIXTURE, policy_fixture


def test_the_policy_fixture_is_what_the_dev_stack_renders():
    assert json.loads(FIXTURE.read_text()) == policy_fixture(), (
        "regenerate it: .venv/bin/python scripts/policy_fixture.py"
    )
