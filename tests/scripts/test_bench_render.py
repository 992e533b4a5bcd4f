"""The render benchmark's generated stacks: the program must take them, or the benchmark fails
before it measures anything."""

import pytest

from scripts.bench_render import stack_config
from tests.support import checked


@pytest.mark.parametrize("large", [False, True], ids=["plain", "large"])
def test_the_generated_stacks_pass_the_checks(large):
    found = checked(stack_config(2, large=large)["config"], stack="dev")

    assert [endpoint.name for endpoint in found.stack.endpoints] == ["dpd-test-00", "dpd-test-01"]
    assert not found.sizing_errors
