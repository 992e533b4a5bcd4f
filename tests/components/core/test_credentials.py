"""What a credential looks like: the shapes with a fixed prefix, and nothing else."""

import pytest

from components.core.credentials import credential_in

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
