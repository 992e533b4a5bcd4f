from typing import Any

import pytest
from pydantic import ValidationError

from components.model.architecture import ModelArchitecture

GQA = {"layers": 80, "kvHeads": 8, "headDim": 128, "parameters": 70.6e9}
MLA = {"layers": 61, "kvLoraRank": 512, "qkRopeHeadDim": 64, "parameters": 671e9}


def architecture(**fields: Any) -> ModelArchitecture:
    return ModelArchitecture.model_validate(fields)


def test_the_attention_kind_follows_from_the_fields():
    assert architecture(**GQA).attention == "GQA"
    assert architecture(**MLA).attention == "MLA"
    sliding = architecture(**GQA, slidingWindow=128, slidingWindowLayers=40)
    assert sliding.attention == "sliding window"
    assert sliding.full_attention_layers == 40


@pytest.mark.parametrize(
    "fields",
    [
        {"layers": 80, "kvHeads": 8, "parameters": 1e9},
        {"layers": 61, "kvLoraRank": 512, "parameters": 1e9},
        {**GQA, "kvLoraRank": 512, "qkRopeHeadDim": 64},
        {**GQA, "kvLoraRank": 512},
        {"layers": 80, "parameters": 1e9},
    ],
)
def test_exactly_one_attention_kind_must_be_complete(fields):
    with pytest.raises(ValidationError, match="set kvHeads and headDim"):
        architecture(**fields)


@pytest.mark.parametrize(
    "fields, says",
    [
        ({"slidingWindow": 128}, "set slidingWindow and slidingWindowLayers together"),
        ({"slidingWindowLayers": 4}, "set slidingWindow and slidingWindowLayers together"),
        ({"slidingWindow": 128, "slidingWindowLayers": 81}, "more than the 80 layers"),
    ],
)
def test_sliding_window_fields_go_together_within_the_layers(fields, says):
    with pytest.raises(ValidationError, match=says):
        architecture(**GQA, **fields)


def test_weights_take_the_dtype_unless_they_have_their_own_bytes_per_parameter():
    assert architecture(**GQA).weight_bytes == 70.6e9 * 2
    assert architecture(**GQA, dtype="fp32").weight_bytes == 70.6e9 * 4
    assert architecture(**GQA, weightBytesPerParameter=1).weight_bytes == 70.6e9
