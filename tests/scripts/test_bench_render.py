"""The render benchmark's generated stacks: the program must take them, or the benchmark fails
before it measures anything."""

import pytest

from scripts.bench_render import stack_config
from tests.support import settings_of


@pytest.mark.parametrize("large", [False, True], ids=["plain", "large"])
def test_the_generated_stacks_pass_the_checks(large):
    settings = settings_of(stack_config(2, large=large)["config"], stack="dev")

    assert [endpoint.name for endpoint in settings.stack.endpoints] == [
        "dpd-test-00",
        "dpd-test-01",
    ]
