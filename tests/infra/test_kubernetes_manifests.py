"""The built-in Kubernetes objects of the render pass Kubernetes' own schemas, strictly."""

import kubernetes_validate
import pytest

from tests.support import dev_endpoint, render, with_endpoints
from tools.render.render_report import kubernetes_objects

KUBERNETES_VERSION = "1.35"


def built_in(result) -> list[dict]:
    return [o for o in kubernetes_objects(result) if "." not in o["apiVersion"].split("/")[0]]


@pytest.fixture(scope="module")
def objects(prod_render) -> list[dict]:
    gated = {
        **dev_endpoint(),
        # Swapped between generations behind the stack's Service.
        "rollout": "newName",
        "modelSource": {
            "huggingFace": {
                "modelId": "meta-llama/Llama-3.3-70B-Instruct",
                "tokenConfigKey": "hfToken",
            }
        },
    }
    hugging_face = with_endpoints(gated, **{"hyperpod-dpd:hfToken": {"secure": "v1:abc"}})
    return built_in(prod_render) + built_in(render(hugging_face))


def test_the_renders_hold_a_namespace_a_secret_and_a_swapped_endpoints_stable_service(objects):
    assert sorted(o["kind"] for o in objects) == ["Namespace", "Secret", "Service"]


def test_every_built_in_object_is_valid_kubernetes(objects):
    for obj in objects:
        kubernetes_validate.validate(obj, KUBERNETES_VERSION, strict=True)


def test_the_check_catches_an_unknown_field(objects):
    broken = {**objects[0], "spec": {"surprise": True}}
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, KUBERNETES_VERSION, strict=True)
