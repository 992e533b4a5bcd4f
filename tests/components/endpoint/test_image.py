import pytest

from components.endpoint.image import check_image
from tests.components.endpoint.items import endpoint_item, endpoint_problem, endpoint_problems


def test_an_image_not_documented_for_dpd_is_warned_about():
    (finding,) = check_image("vllm/vllm-openai:latest")
    assert (finding.code, finding.level, finding.field) == ("unknown-image", "warning", "image")


def test_the_documented_images_pass():
    assert check_image("lmcache/vllm-openai:v0.4.3") == []


REFUSED = [
    ({"image": ""}, "image", "container image reference"),
    ({"image": "vLLM/OpenAI:latest"}, "image", "lowercase repository path"),
]


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_a_reference_the_kubelet_cannot_pull_is_refused(changes, key, says):
    assert says in endpoint_problem(changes, key)


VALID = [
    {"image": "123456789012.dkr.ecr.us-west-2.amazonaws.com/vllm-dpd:0.19.0@sha256:" + "a" * 64},
    {"image": "localhost:5000/team/vllm__dpd"},
]


@pytest.mark.parametrize("case", VALID)
def test_unusual_but_valid_references_pass(case):
    assert endpoint_problems(endpoint_item(case)) == []
