"""The operator's settings refused in words, with an example of a value they take."""

import pytest

from tests.support import dev_config, stack_problems

REFUSED_IN_WORDS = {
    "an operator version written like an add-on's": (
        {"operatorVersion": "v3.2"},
        "hyperpod-dpd:operator.operatorVersion: 'v3.2' is not allowed; must be an operator "
        "version: two or three numbers, such as 3.2 or 3.3.1",
    ),
    "a dependency pinned without its v, answered with its own floor": (
        {"dependencyVersions": {"certManager": "1.18.2"}},
        "hyperpod-dpd:operator.dependencyVersions.certManager: '1.18.2' is not allowed; must be "
        "an EKS add-on version: v, three numbers and an optional -eksbuild.N, such as "
        "v1.18.2-eksbuild.2",
    ),
}


@pytest.mark.parametrize("case", REFUSED_IN_WORDS)
def test_a_refusal_says_what_is_wrong(case):
    operator, line = REFUSED_IN_WORDS[case]
    config = {**dev_config(), "hyperpod-dpd:operator": operator}
    assert stack_problems(config) == [line]
