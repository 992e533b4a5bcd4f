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
            }
        }
    },
]


@pytest.mark.parametrize("changes", VALID)
def test_unusual_but_valid_sources_pass(changes):
    assert endpoint_configs(render(dev_with(changes)))
