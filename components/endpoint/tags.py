"""The tags an endpoint gives its SageMaker endpoint, held to SageMaker's rules (API reference,
Tag; the same in cfn-lint's AWS::SageMaker::Cluster schema): keys of 1 to 128 and values of up
to 256 characters, of letters, digits, whitespace and _ . : / = + - @; the aws: prefix is AWS's
own; at most 50 tags on a resource."""

import unicodedata

from components.core.credentials import credential_in

TAGS_MAX = 50
TAG_KEY_MAX = 128
TAG_VALUE_MAX = 256
TAG_PUNCTUATION = set("_.:/=+-@")


def _tag_text_problem(text: str, what: str, most: int) -> str | None:
    if len(text) > most:
        return f"{what} {text[:40]!r}... is {len(text)} characters; SageMaker takes at most {most}"
    odd = sorted({c for c in text if unicodedata.category(c)[0] not in "LNZ"} - TAG_PUNCTUATION)
    if odd:
        return (
            f"{what} {text!r} holds {''.join(odd)!r}; SageMaker takes letters, digits, spaces "
            "and _ . : / = + - @"
        )
    if text.lower().startswith("aws:"):
        return f"{what} {text!r} starts with 'aws:', which AWS reserves for its own tags"
    if kind := credential_in(text):
        # Tags are read by anyone who may list the endpoint's (sagemaker:ListTags), and sit in
        # the manifest and the Pulumi state: no place for a credential. Not repeated here.
        return (
            f"{'a tag key' if what == 'key' else what} holds what looks like {kind}; tags are "
            "plain text to anyone who may list them: keep credentials out of tags"
        )
    return None


def tag_problems(tags: dict[str, str]) -> list[str]:
    problems = [f"has {len(tags)} tags; SageMaker takes at most {TAGS_MAX}"] * (
        len(tags) > TAGS_MAX
    )
    for key, value in tags.items():
        if not key:
            problems.append("has an empty key; SageMaker tag keys have 1 to 128 characters")
        problems += [
            p
            for p in (
                _tag_text_problem(key, "key", TAG_KEY_MAX),
                _tag_text_problem(value, f"the value of {key}", TAG_VALUE_MAX),
            )
            if p
        ]
    return problems
