"""The container image an endpoint's pods run: a reference the kubelet can pull, and the images
documented for DPD."""

from typing import Annotated

from pydantic import AfterValidator

from components.core.findings import Finding, warning
from components.core.shaped import shaped

DLC_IMAGE = "public.ecr.aws/deep-learning-containers/vllm:server-hyperpod-cuda-v1.1"
LMCACHE_IMAGE = "lmcache/vllm-openai:v0.4.3"
# Both carry LMCache 0.4.3, vLLM 0.19.0, NIXL 1.0.0 and the EFA libfabric provider.
DPD_IMAGES = (DLC_IMAGE, LMCACHE_IMAGE)

# An OCI image reference (the grammar of distribution/reference, which containerd and the
# kubelet parse): [registry[:port]/]path[:tag][@digest], path components lowercase.
_LABEL = r"[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?"
_DOMAIN = rf"{_LABEL}(?:\.{_LABEL})*(?::[0-9]+)?"
_PATH = r"[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*"
_TAG = r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}"
_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}"
IMAGE_REFERENCE = rf"(?:{_DOMAIN}/)?{_PATH}(?:/{_PATH})*(?::{_TAG})?(?:@{_DIGEST})?"
# distribution/reference's NameTotalLengthMax.
IMAGE_NAME_MAX = 255


def _name_length(value: str) -> str:
    name = value.split("@", 1)[0]
    if len(name) > IMAGE_NAME_MAX:
        raise ValueError(f"is {len(name)} characters; an image name takes at most 255")
    return value


ImageReference = Annotated[
    str,
    shaped(
        IMAGE_REFERENCE,
        "must be a container image reference such as "
        "public.ecr.aws/deep-learning-containers/vllm:server-hyperpod-cuda-v1.1: an optional "
        "registry, a lowercase repository path, an optional :tag and @sha256:digest",
    ),
    AfterValidator(_name_length),
]


def check_image(image: str) -> list[Finding]:
    if image in DPD_IMAGES:
        return []
    return [
        warning(
            "unknown-image",
            "image",
            f"{image} is not one of the images documented for DPD ({', '.join(DPD_IMAGES)}); "
            "it must bring vLLM, LMCache, NIXL and the EFA libfabric provider",
        )
    ]
