"""What a credential looks like, wherever a stack file writes text that reaches a manifest, a
tag or a command line in plain text.

Only shapes with a fixed prefix and length, so that no ordinary value is taken for one (after
gitleaks' rules `huggingface.go`, `aws.go` and `privatekey.go`): a Hugging Face token (`hf_` or
`api_org_` and 34 letters; placeholders such as hf_xxxx... have too few distinct letters), an
AWS access key ID (AKIA, ASIA, ABIA, ACCA or A3T? and 16 of A-Z2-7; those ending in EXAMPLE are
placeholders), a PEM private key's header. An AWS secret key has no prefix, so it is left to
the rules on names (..._SECRET_ACCESS_KEY), or taken for one under a name ending in KEY.
"""

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
