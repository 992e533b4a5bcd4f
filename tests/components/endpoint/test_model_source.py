import pytest

from components.endpoint.model_source import ModelSource, check_model_source
from tests.components.endpoint.items import endpoint_item, endpoint_problem, endpoint_problems
from tests.support import by_code

REFUSED = [
    (
        {"modelSource.s3": {"prefix": "x", "bucket": "My_Bucket"}},
        "modelSource.s3.bucket",
        "S3 bucket names must be 3 to 63 lowercase",
    ),
    (
        {"modelSource.s3": {"prefix": "s3://models/llama"}},
        "modelSource.s3.prefix",
        "bucket: models and prefix: llama",
    ),
    (
        {
            "modelSource": {
                "fsx": {"fileSystemId": "fs-0123456789abcdef0", "mountName": "toolongname"}
            }
        },
        "modelSource.fsx.mountName",
        "1 to 8 letters",
    ),
    (
        {"modelSource": {"fsx": {"fileSystemId": "fs-0123456789abcdef0", "dnsName": "fsx.local"}}},
        "modelSource.fsx.dnsName",
        "DNS name",
    ),
    # An S3 prefix: what no terminal shows as written, what no file system holds, what S3 refuses.
    *(
        ({"modelSource.s3.prefix": prefix}, "modelSource.s3.prefix", says)
        for prefix, says in [
            ("models/llama\ntouch x", "holds \\n, a control or invisible formatting character"),
            ("models/\x1b[2Kllama", "holds \\x1b, a control or invisible formatting character"),
            ("models/llama\u202e", "holds \\u202e, a control or invisible formatting character"),
            ("models/../other-team", "has an empty, '.' or '..' folder name"),
            ("models//llama", "has an empty, '.' or '..' folder name"),
            ("models/./llama", "has an empty, '.' or '..' folder name"),
            ("/", "has an empty, '.' or '..' folder name"),
            ("m" * 1025, "is over the 1,024 bytes of an S3 key"),
        ]
    ),
    (
        {
            "modelSource": {
                "fsx": {"fileSystemId": "fs-0123456789abcdef0", "path": "/fsx/../../etc"}
            }
        },
        "modelSource.fsx.path",
        "has an empty, '.' or '..' folder name",
    ),
]


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_a_source_s3_or_fsx_would_refuse_is_refused(changes, key, says):
    assert says in endpoint_problem(changes, key)


VALID = [
    {
        "modelSource.s3": {
            "prefix": "models/llama-3.3/",
            "bucket": "acme.models-us-west-2",
        }
    },
    {
        "modelSource": {
            "fsx": {
                "fileSystemId": "fs-0123456789abcdef0",
                "dnsName": "fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com",
                "mountName": "ab_c-12",
                "path": "/fsx/models/Llama 3.3 (70B)",
            }
        }
    },
    # Keys S3 takes, with characters AWS says may need special handling: every command quotes
    # them.
    {"modelSource.s3.prefix": "team=ml/run:1/Llama 3.3 (70B)+fp8,v2!"},
    {"modelSource.s3.prefix": "/models/llama/"},
    {"modelSource.s3.prefix": "modèles/日本語/llama.v1"},
    {"modelSource.s3.prefix": "a/$HOME & b; c@d?e"},
]


@pytest.mark.parametrize("case", VALID)
def test_unusual_but_valid_sources_pass(case):
    assert endpoint_problems(endpoint_item(case)) == []


@pytest.mark.parametrize(
    "prefix, code",
    [
        ("models/`touch x`", "s3-key-characters-to-avoid"),
        ("a<img src=x>", "s3-key-characters-to-avoid"),
        ("models/100%", "s3-key-characters-to-avoid"),
        ("runs/[2024]/~v2#1", "s3-key-characters-to-avoid"),
        ("models\\llama", "s3-key-characters-to-avoid"),
        (" models/llama", "s3-key-space-at-an-end"),
    ],
)
def test_a_prefix_s3_takes_but_tools_mishandle_is_warned_about(prefix, code):
    source = ModelSource.model_validate({"s3": {"prefix": prefix}})
    assert by_code(check_model_source(source)) == {code: [("warning", "modelSource.s3.prefix")]}


def test_a_prefix_of_safe_and_special_handling_characters_is_said_nothing_of():
    source = ModelSource.model_validate({"s3": {"prefix": "a/$HOME & b; c@d?e=f+g,h:i"}})
    assert check_model_source(source) == []
