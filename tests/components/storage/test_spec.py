"""Bucket names S3 would refuse, by its general purpose bucket naming rules."""

import pytest

from components.storage.spec import bucket_name_problem


@pytest.mark.parametrize("name", ["abc", "hyperpod-dpd-dev-models-123456789012", "a.b-c", "a" * 63])
def test_names_s3_accepts(name):
    assert bucket_name_problem(name) is None


@pytest.mark.parametrize(
    "name",
    ["ab", "a" * 64, "Models", "models_1", "-models", "models-", "a..b", "192.168.1.1",
     "xn--models", "sthree-models", "amzn-s3-demo-models", "models-s3alias", "models--ol-s3",
     "models.mrap", "models--x-s3", "models--table-s3"],
)  # fmt: skip
def test_names_s3_refuses(name):
    assert bucket_name_problem(name) is not None
