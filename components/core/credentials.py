"""What a credential looks like, wherever a stack file writes text that reaches a manifest, a
tag or a command line in plain text.

Only the credentials this stack's users hold, and only shapes with a fixed prefix and length,
so that no ordinary value is taken for one (the rules of gitleaks, gitleaks/gitleaks
`cmd/generate/config/rules/huggingface.go`, `aws.go` and `privatekey.go`):
- a Hugging Face user access token: `hf_` and 34 letters; an organisation API token,
  `api_org_` and 34 letters (Hugging Face, "User access tokens"). A placeholder such as
  hf_xxxx... has almost no distinct letters, as gitleaks' entropy floor also lets through;
- an AWS access key ID: AKIA, ASIA, ABIA, ACCA or A3T? and 16 of A-Z2-7; AWS's documentation
  key, AKIAIOSFODNN7EXAMPLE, and others ending in EXAMPLE, are placeholders;
- a PEM private key's header.
An AWS secret access key is 40 base64 characters with no prefix of its own: a shape rule would
refuse a 40-character digest or ID as well, so it is left to the rules on names (a key named
..._SECRET_ACCESS_KEY), and the access key ID it travels with is refused; under a name whose
last word is KEY (S3_KEY), its shape with both cases and a digit is taken for one.
"""

from __future__ import annotations

import re

# Fewer distinct letters than this in a token's 34 is a placeholder, not a token.
_DISTINCT_LETTERS = 8
_HUGGING_FACE = re.compile(r"(?<![A-Za-z0-9])(?:hf_|api_org_)([A-Za-z]{34})(?![A-Za-z0-9])")
_AWS_ACCESS_KEY_ID = re.compile(
    r"(?<![A-Z0-9])((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})(?![A-Z0-9])"
)
_PRIVATE_KEY = re.compile(r"-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY")


def credential_in(text: str) -> str | None:
    """What credential `text` holds, in words; None when it holds none this module knows."""
    if any(len(set(m.group(1).lower())) >= _DISTINCT_LETTERS for m in _HUGGING_FACE.finditer(text)):
        return "a Hugging Face token"
    if any(not m.group(1).endswith("EXAMPLE") for m in _AWS_ACCESS_KEY_ID.finditer(text)):
        return "an AWS access key ID"
    if _PRIVATE_KEY.search(text):
        return "a private key"
    return None


_AWS_SECRET_KEY = re.compile(r"(?=[^a-z]*[a-z])(?=[^A-Z]*[A-Z])(?=[^0-9]*[0-9])[A-Za-z0-9/+]{40}")


def secret_key_under(name: str, text: str) -> bool:
    last = re.split(r"[-._]", name.upper())[-1]
    return last.endswith("KEY") and _AWS_SECRET_KEY.fullmatch(text.strip()) is not None
