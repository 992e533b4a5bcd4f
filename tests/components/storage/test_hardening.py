"""What a hardened bucket is, as the policy pack checks it."""

import pytest

from components.storage.hardening import bucket_violations

SSE_S3 = {"rules": [{"applyServerSideEncryptionByDefault": {"sseAlgorithm": "AES256"}}]}
SSE_KMS = {
    "rules": [
        {
            "applyServerSideEncryptionByDefault": {
                "sseAlgorithm": "aws:kms",
                "kmsMasterKeyId": "arn:aws:kms:us-west-2:123456789012:key/abc",
            },
            "bucketKeyEnabled": True,
        }
    ]
}
PRIVATE = {
    "blockPublicAcls": True,
    "blockPublicPolicy": True,
    "ignorePublicAcls": True,
    "restrictPublicBuckets": True,
}


@pytest.mark.parametrize("encryption", [SSE_S3, SSE_KMS])
def test_an_encrypted_private_bucket_is_hardened(encryption):
    assert bucket_violations([encryption], [PRIVATE], acls=["private"]) == []


def test_a_bucket_without_encryption_is_told_what_to_add():
    assert bucket_violations([], [PRIVATE], acls=[]) == [
        "has no default encryption; add a server-side encryption configuration with "
        "AES256 or aws:kms"
    ]


def test_an_encryption_configuration_without_a_default_rule_does_not_count():
    assert bucket_violations([{"rules": []}], [PRIVATE], acls=[]) == [
        "has no default encryption; add a server-side encryption configuration with "
        "AES256 or aws:kms"
    ]


def test_an_algorithm_other_than_sse_s3_or_sse_kms_is_refused():
    dsse = {"rules": [{"applyServerSideEncryptionByDefault": {"sseAlgorithm": "aws:kms:dsse"}}]}
    assert bucket_violations([dsse], [PRIVATE], acls=[]) == [
        "encrypts by default with 'aws:kms:dsse'; allowed are AES256 or aws:kms"
    ]


def test_a_bucket_without_a_public_access_block_is_told_what_to_add():
    assert bucket_violations([SSE_S3], [], acls=[]) == [
        "has no public access block; add one with blockPublicAcls, blockPublicPolicy, "
        "ignorePublicAcls, restrictPublicBuckets all true"
    ]


def test_every_switch_of_the_public_access_block_must_be_on():
    leaky = {**PRIVATE, "blockPublicPolicy": False}
    del leaky["restrictPublicBuckets"]
    assert bucket_violations([SSE_S3], [leaky], acls=[]) == [
        "has blockPublicPolicy, restrictPublicBuckets off in its public access block; "
        "blockPublicAcls, blockPublicPolicy, ignorePublicAcls, restrictPublicBuckets must all "
        "be on"
    ]


@pytest.mark.parametrize("acl", ["public-read", "public-read-write", "authenticated-read"])
def test_a_public_canned_acl_is_refused(acl):
    assert bucket_violations([SSE_S3], [PRIVATE], acls=[acl]) == [
        f"has the ACL {acl!r}, which makes it public; use private"
    ]
