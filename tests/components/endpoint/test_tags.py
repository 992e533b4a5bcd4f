import pytest

from tests.stack_changes import refusal, renders_each

# Through the whole program, naming the full key (issue 21, section 3).
REFUSED = [
    ({"endpoints[0].tags": {"aws:team": "ml"}}, "endpoints[0].tags", "AWS reserves"),
    ({"endpoints[0].tags": {"k" * 129: "v"}}, "endpoints[0].tags", "at most 128"),
    ({"endpoints[0].tags": {"team": "v" * 257}}, "endpoints[0].tags", "at most 256"),
    ({"endpoints[0].tags": {"team": "a|b"}}, "endpoints[0].tags", "holds '|'"),
    ({"endpoints[0].tags": {f"t{i}": "v" for i in range(51)}}, "endpoints[0].tags", "at most 50"),
    # Tags are plain text to anyone who may list them.
    (
        {"endpoints[0].tags": {"deployedWith": "hf_" + "abcdefghijklmnopq" * 2}},
        "endpoints[0].tags",
        "the value of deployedWith holds what looks like a Hugging Face token; tags are plain",
    ),
    (
        {"endpoints[0].tags": {"key " + "AKIA" + "ABCDEFGHIJKLMN23": "x"}},
        "endpoints[0].tags",
        "holds what looks like an AWS access key ID",
    ),
]


def test_a_credential_in_a_tag_is_not_repeated_in_the_refusal():
    token = "hf_" + "abcdefghijklmnopq" * 2
    assert token not in refusal({"endpoints[0].tags": {"t": token}}, "endpoints[0].tags")


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_a_tag_sagemaker_would_refuse_is_refused(changes, key, says):
    assert says in refusal(changes, key)


VALID = [
    {"endpoints[0].tags": {"Équipe data": "ML/Inference @ acme:+=_.-", "empty": ""}},
    {"endpoints[0].tags": {"costCenter": 1234, "team": "ml-platform"}},
    # Shaped like nothing secret: AWS's documentation key, a placeholder, a commit.
    {"endpoints[0].tags": {"example": "AKIAIOSFODNN7EXAMPLE", "placeholder": "hf_" + "x" * 34}},
    {"endpoints[0].tags": {"commit": "0123456789abcdef0123456789abcdef01234567"}},
]


valid_rendered = renders_each(VALID)


@pytest.mark.parametrize("case", range(len(VALID)))
def test_unusual_but_valid_tags_pass(valid_rendered, case):
    assert valid_rendered[case], VALID[case]
