"""What a credential looks like: the shapes with a fixed prefix, and nothing else."""

import pytest

from components.core.credentials import credential_in, secret_key_under

# Built, not written whole, so that no scanner of this repository takes them for leaks.
HF_TOKEN = "hf_" + "abcdefghijklmnopq" * 2
HF_ORG_TOKEN = "api_org_" + "QrStUvWxYzAbCdEfG" * 2
AWS_KEY_ID = "AKIA" + "ABCDEFGHIJKLMN23"


@pytest.mark.parametrize(
    "text, kind",
    [
        (HF_TOKEN, "a Hugging Face token"),
        (f"Bearer {HF_TOKEN}", "a Hugging Face token"),
        (f"sh -c 'HF_TOKEN={HF_TOKEN} vllm serve'", "a Hugging Face token"),
        (HF_ORG_TOKEN, "a Hugging Face token"),
        (AWS_KEY_ID, "an AWS access key ID"),
        (f"key={AWS_KEY_ID};", "an AWS access key ID"),
        ("ASIA" + "ABCDEFGHIJKLMN23", "an AWS access key ID"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn...", "a private key"),
        ("-----BEGIN PRIVATE KEY-----", "a private key"),
    ],
)
def test_a_known_credential_is_found_in_any_text(text, kind):
    assert credential_in(text) == kind


@pytest.mark.parametrize(
    "text",
    [
        "hf_transfer",
        "hf_" + "x" * 34,  # a placeholder
        HF_TOKEN + "x",  # 35 letters: not the shape
        "the_" + "abcdefghijklmnopq" * 2,
        "AKIAIOSFODNN7EXAMPLE",  # AWS's documentation key
        "AKIA" + "abcdefghijklmn23",  # lowercase: not a key ID
        "sha256:" + "3f" * 32,
        "0123456789abcdef0123456789abcdef01234567",  # a commit
        "-----BEGIN CERTIFICATE-----",
        "Llama-3.3-70B-Instruct",
    ],
)
def test_ordinary_values_are_not_taken_for_credentials(text):
    assert credential_in(text) is None


@pytest.mark.parametrize(
    ("name", "value", "secret"),
    [
        ("S3_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", True),
        ("aws.key", "Zx9Qw3Lm8Rt2Yp7Kb4Nc6Vd1Hf5Gj0Sa+Ue/Io3P", True),
        # An object key, a digest and a secret under a name that says nothing of keys.
        ("S3_KEY", "models/llama-3.3-70b/config.json", False),
        ("CACHE_KEY", "da39a3ee5e6b4b0d3255bfef95601890afd80709", False),
        ("CHECKSUM", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", False),
    ],
)
def test_an_aws_secret_key_is_known_by_its_shape_under_a_key_name(name, value, secret):
    assert secret_key_under(name, value) is secret
