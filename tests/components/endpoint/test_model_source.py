import pytest

from tests.stack_changes import dev_with, refusal
from tests.support import endpoint_configs, render

# Through the whole program, naming the full key (issue 21, section 3).
REFUSED = [
    (
        {"endpoints[0].modelSource.s3": {"prefix": "x", "bucket": "My_Bucket"}},
        "endpoints[0].modelSource.s3.bucket",
        "S3 bucket names must be 3 to 63 lowercase",
    ),
    (
        {"endpoints[0].modelSource.s3": {"prefix": "s3://models/llama"}},
        "endpoints[0].modelSource.s3.prefix",
        "bucket: models and prefix: llama",
    ),
    (
        {
            "endpoints[0].modelSource": {
                "fsx": {"fileSystemId": "fs-0123456789abcdef0", "mountName": "toolongname"}
            }
        },
        "endpoints[0].modelSource.fsx.mountName",
        "1 to 8 letters",
    ),
    (
        {
            "endpoints[0].modelSource": {
                "fsx": {"fileSystemId": "fs-0123456789abcdef0", "dnsName": "fsx.local"}
            }
        },
        "endpoints[0].modelSource.fsx.dnsName",
        "DNS name",
    ),
    # An S3 prefix: characters AWS says to avoid in keys, and what no file system shows.
    *(
        ({"endpoints[0].modelSource.s3.prefix": prefix}, "endpoints[0].modelSource.s3.prefix", says)
        for prefix, says in [
            ("models/`touch x`", "holds `, which AWS says to avoid in S3 keys"),
            ("a<img src=x>", "holds < >, which AWS says to avoid"),
            ("models/llama|evil", "holds |, which AWS says"),
            ("models/100%", "holds %, which AWS says"),
            ("models/#1", "holds #, which AWS says"),
            ("models/llama\ntouch x", "holds \\n, a control or invisible formatting character"),
            ("models/\x1b[2Kllama", "holds \\x1b, a control or invisible formatting character"),
            ("models/llama\u202e", "holds \\u202e, a control or invisible formatting character"),
            ("models/../other-team", "has an empty, '.' or '..' folder name"),
            ("models//llama", "has an empty, '.' or '..' folder name"),
            ("models/./llama", "has an empty, '.' or '..' folder name"),
            ("/", "has an empty, '.' or '..' folder name"),
            (" models/llama", "starts or ends with a space"),
            ("m" * 1025, "is over the 1,024 bytes of an S3 key"),
        ]
    ),
    (
        {
            "endpoints[0].modelSource": {
                "fsx": {"fileSystemId": "fs-0123456789abcdef0", "path": "/fsx/../../etc"}
            }
        },
        "endpoints[0].modelSource.fsx.path",
        "has an empty, '.' or '..' folder name",
    ),
]


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_a_source_s3_or_fsx_would_refuse_is_refused(changes, key, says):
    assert says in refusal(changes, key)


VALID = [
    {
        "endpoints[0].modelSource.s3": {
            "prefix": "models/llama-3.3/",
            "bucket": "acme.models-us-west-2",
        }
    },
    {
        "endpoints[0].modelSource": {
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
    {"endpoints[0].modelSource.s3.prefix": "team=ml/run:1/Llama 3.3 (70B)+fp8,v2!"},
    {"endpoints[0].modelSource.s3.prefix": "/models/llama/"},
    {"endpoints[0].modelSource.s3.prefix": "modèles/日本語/llama.v1"},
    {"endpoints[0].modelSource.s3.prefix": "a/$HOME & b; c@d?e"},
]


@pytest.mark.parametrize("changes", VALID)
def test_unusual_but_valid_sources_pass(changes):
    assert endpoint_configs(render(dev_with(changes)))
