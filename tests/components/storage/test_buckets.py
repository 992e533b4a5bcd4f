"""Buckets and HardenedBucket under mocks: one hardened pattern for every bucket."""

import json

import pytest

from components.storage.buckets import Buckets, BucketsArgs
from components.storage.hardening import bucket_violations
from components.storage.spec import BucketNames
from tests.support import run_component

NAMES = BucketNames(
    logs="dpd-logs", lifecycle="sagemaker-dpd", model="dpd-models", tls="hyperpod-tls-dpd"
)


def buckets(**args):
    return run_component(
        lambda: Buckets("buckets", BucketsArgs(names=NAMES, account_id="123456789012", **args))
    )


def bucket_settings(result, suffix: str) -> dict[str, dict]:
    return {r.inputs["bucket"]: r.inputs for r in result.resources if r.type.endswith(suffix)}


def test_the_stack_has_four_buckets_named_as_the_managed_policies_expect():
    made = {r.inputs["bucket"] for r in buckets().resources if r.type == "aws:s3/bucket:Bucket"}
    assert made == {"dpd-logs", "sagemaker-dpd", "dpd-models", "hyperpod-tls-dpd"}


def test_every_bucket_is_encrypted_private_owner_enforced_and_tls_only():
    result = buckets()
    names = set(vars(NAMES).values())
    encryption = bucket_settings(result, ":BucketServerSideEncryptionConfiguration")
    assert set(encryption) == names
    for rule in encryption.values():
        assert rule["rules"][0]["applyServerSideEncryptionByDefault"] == {"sseAlgorithm": "AES256"}
    blocks = bucket_settings(result, ":BucketPublicAccessBlock")
    assert set(blocks) == names
    assert all(
        all(
            b[k]
            for k in (
                "blockPublicAcls",
                "blockPublicPolicy",
                "ignorePublicAcls",
                "restrictPublicBuckets",
            )
        )
        for b in blocks.values()
    )
    assert set(bucket_settings(result, ":BucketOwnershipControls")) == names
    for bucket, policy in bucket_settings(result, ":BucketPolicy").items():
        deny = json.loads(policy["policy"])["Statement"][0]
        assert deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
        assert deny["Resource"] == [f"arn:aws:s3:::{bucket}", f"arn:aws:s3:::{bucket}/*"]


def test_data_buckets_log_access_to_the_log_bucket():
    logging = bucket_settings(buckets(), ":BucketLogging")
    assert set(logging) == {"sagemaker-dpd", "dpd-models", "hyperpod-tls-dpd"}
    assert {entry["targetBucket"] for entry in logging.values()} == {"dpd-logs"}


def test_model_weights_and_lifecycle_scripts_are_versioned():
    assert set(bucket_settings(buckets(), ":BucketVersioning")) == {"dpd-models", "sagemaker-dpd"}


def deletion_of(result) -> dict[str, tuple[bool, bool, bool]]:
    """Per bucket: (protected, retained, emptied) when Pulumi deletes it."""
    return {
        r.inputs["bucket"]: (
            bool(r.options.get("protect")),
            bool(r.options.get("retainOnDelete")),
            r.inputs["forceDestroy"],
        )
        for r in result.resources
        if r.type == "aws:s3/bucket:Bucket"
    }


def test_a_destroy_keeps_the_weights_and_empties_every_other_bucket():
    assert deletion_of(buckets()) == {
        "dpd-models": (False, True, False),
        "dpd-logs": (False, False, True),
        "sagemaker-dpd": (False, False, True),
        "hyperpod-tls-dpd": (False, False, True),
    }


def test_the_kept_model_bucket_stays_hardened_and_versioned_but_stops_logging():
    result = buckets()
    retained = {
        r.type.rsplit(":", 1)[1]
        for r in result.resources
        if r.inputs.get("bucket") == "dpd-models" and r.options.get("retainOnDelete")
    }
    assert retained == {
        "Bucket",
        "BucketOwnershipControls",
        "BucketPublicAccessBlock",
        "BucketServerSideEncryptionConfiguration",
        "BucketPolicy",
        "BucketVersioning",
    }


def test_protect_covers_every_bucket_when_asked():
    assert all(protected for protected, _, _ in deletion_of(buckets(protect=True)).values())


def test_a_kms_key_encrypts_the_data_buckets_but_not_the_access_logs():
    key = "arn:aws:kms:us-west-2:123456789012:key/abc"
    encryption = bucket_settings(
        buckets(kms_key_arn=key), ":BucketServerSideEncryptionConfiguration"
    )
    assert encryption["dpd-models"]["rules"][0]["applyServerSideEncryptionByDefault"] == {
        "sseAlgorithm": "aws:kms",
        "kmsMasterKeyId": key,
    }
    assert encryption["dpd-logs"]["rules"][0]["applyServerSideEncryptionByDefault"] == {
        "sseAlgorithm": "AES256"
    }


@pytest.mark.parametrize("kms_key_arn", [None, "arn:aws:kms:us-west-2:123456789012:key/abc"])
def test_every_bucket_is_what_the_policy_pack_holds_buckets_to(kms_key_arn):
    result = buckets(kms_key_arn=kms_key_arn)
    encryption = bucket_settings(result, ":BucketServerSideEncryptionConfiguration")
    blocks = bucket_settings(result, ":BucketPublicAccessBlock")
    for name in vars(NAMES).values():
        assert bucket_violations([encryption[name]], [blocks[name]], acls=[]) == []


def test_an_existing_model_bucket_is_not_created():
    made = {
        r.inputs["bucket"]
        for r in buckets(model_bucket_exists=True).resources
        if r.type == "aws:s3/bucket:Bucket"
    }
    assert "dpd-models" not in made
