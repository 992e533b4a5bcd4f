import pytest

from components.endpoint.image import check_image
from tests.stack_changes import refusal, renders_each


def test_an_image_not_documented_for_dpd_is_warned_about():
    (finding,) = check_image("vllm/vllm-openai:latest")
    assert (finding.code, finding.level, finding.field) == ("unknown-image", "warning", "image")


def test_the_documented_images_pass():
    assert check_image("lmcache/vllm-openai:v0.4.3") == []


# Through the whole program, naming the full key (issue 21, section 3).
REFUSED = [
    ({"endpoints[0].image": ""}, "endpoints[0].image", "container image reference"),
    (
        {"endpoints[0].image": "vLLM/OpenAI:latest"},
        "endpoints[0].image",
        "lowercase repository path",
    ),
]


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_a_reference_the_kubelet_cannot_pull_is_refused(changes, key, says):
    assert says in refusal(changes, key)


VALID = [
    {
        "endpoints[0].image": "123456789012.dkr.ecr.us-west-2.amazonaws.com/vllm-dpd:0.19.0@sha256:"
        + "a" * 64
    },
    {"endpoints[0].image": "localhost:5000/team/vllm__dpd"},
]


valid_rendered = renders_each(VALID)


@pytest.mark.parametrize("case", range(len(VALID)))
def test_unusual_but_valid_references_pass(valid_rendered, case):
    assert valid_rendered[case], VALID[case]
