import pytest

from tests.stack_changes import dev_with, refusal
from tests.support import endpoint_configs, render

# Through the whole program, naming the full key (issue 21, section 3).
REFUSED = [
    ({"endpoints[0].tags": {"aws:team": "ml"}}, "endpoints[0].tags", "AWS reserves"),
    ({"endpoints[0].tags": {"k" * 129: "v"}}, "endpoints[0].tags", "at most 128"),
    ({"endpoints[0].tags": {"team": "v" * 257}}, "endpoints[0].tags", "at most 256"),
    ({"endpoints[0].tags": {"team": "a|b"}}, "endpoints[0].tags", "holds '|'"),
    ({"endpoints[0].tags": {f"t{i}": "v" for i in range(51)}}, "endpoints[0].tags", "at most 50"),
]


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_a_tag_sagemaker_would_refuse_is_refused(changes, key, says):
    assert says in refusal(changes, key)


VALID = [
    {"endpoints[0].tags": {"Équipe data": "ML/Inference @ acme:+=_.-", "empty": ""}},
    {"endpoints[0].tags": {"costCenter": 1234, "team": "ml-platform"}},
]


@pytest.mark.parametrize("changes", VALID)
def test_unusual_but_valid_tags_pass(changes):
    assert endpoint_configs(render(dev_with(changes)))
