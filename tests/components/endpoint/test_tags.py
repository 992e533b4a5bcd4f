import pytest

from tests.components.endpoint.items import endpoint_item, endpoint_problem, endpoint_problems

REFUSED = [
    ({"tags": {"aws:team": "ml"}}, "tags", "AWS reserves"),
    ({"tags": {"k" * 129: "v"}}, "tags", "at most 128"),
    ({"tags": {"team": "v" * 257}}, "tags", "at most 256"),
    ({"tags": {"team": "a|b"}}, "tags", "holds '|'"),
    ({"tags": {f"t{i}": "v" for i in range(51)}}, "tags", "at most 50"),
    # Tags are plain text to anyone who may list them.
    (
        {"tags": {"deployedWith": "hf_" + "abcdefghijklmnopq" * 2}},
        "tags",
        "the value of deployedWith holds what looks like a Hugging Face token; tags are plain",
    ),
    (
        {"tags": {"key " + "AKIA" + "ABCDEFGHIJKLMN23": "x"}},
        "tags",
        "holds what looks like an AWS access key ID",
    ),
]


def test_a_credential_in_a_tag_is_not_repeated_in_the_endpoint_problem():
    token = "hf_" + "abcdefghijklmnopq" * 2
    assert token not in endpoint_problem({"tags": {"t": token}}, "tags")


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_a_tag_sagemaker_would_refuse_is_refused(changes, key, says):
    assert says in endpoint_problem(changes, key)


VALID = [
    {"tags": {"Équipe data": "ML/Inference @ acme:+=_.-", "empty": ""}},
    {"tags": {"costCenter": 1234, "team": "ml-platform"}},
    # Shaped like nothing secret: AWS's documentation key, a placeholder, a commit.
    {"tags": {"example": "AKIAIOSFODNN7EXAMPLE", "placeholder": "hf_" + "x" * 34}},
    {"tags": {"commit": "0123456789abcdef0123456789abcdef01234567"}},
]


@pytest.mark.parametrize("case", VALID)
def test_unusual_but_valid_tags_pass(case):
    assert endpoint_problems(endpoint_item(case)) == []
