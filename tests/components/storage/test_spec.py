"""The buckets' names: those S3 would refuse, by its general purpose bucket naming rules, and
the rules the stack's four names follow together."""

import pytest

from components.storage.spec import bucket_name_problem, bucket_names, check_bucket_names
from infra.stack_settings import StackSettings
from tests.support import dev_config, problem_for, stack_problems


def _bucket_rules(stack: StackSettings) -> list:
    names = bucket_names(stack.buckets, "hyperpod-dpd-test", "000000000000")
    return check_bucket_names(stack.buckets, names)


def bucket_problems(buckets: dict) -> list[str]:
    """What the program says of the dev stack with these `buckets` settings."""
    return stack_problems({**dev_config(), "hyperpod-dpd:buckets": buckets}, _bucket_rules)


@pytest.mark.parametrize("name", ["abc", "hyperpod-dpd-dev-models-123456789012", "a.b-c", "a" * 63])
def test_names_s3_accepts(name):
    assert bucket_name_problem(name) is None


@pytest.mark.parametrize(
    "name",
    ["ab", "a" * 64, "Models", "models_1", "-models", "models-", "a..b", "192.168.1.1",
     "xn--models", "sthree-models", "amzn-s3-demo-models", "models-s3alias", "models--ol-s3",
     "models.mrap", "models--x-s3", "models--table-s3"],
)  # fmt: skip
def test_names_s3_refuses(name):
    assert bucket_name_problem(name) is not None


# Keyed as the program keys them.


@pytest.mark.parametrize(
    "role, name, prefix",
    [("lifecycle", "my-scripts", "sagemaker-"), ("tls", "my-certs", "hyperpod-tls")],
)
def test_buckets_keep_the_prefix_their_managed_policy_grants(role, name, prefix):
    found = bucket_problems({role: {"name": name}})
    assert f"it must start with '{prefix}'" in problem_for(
        f"hyperpod-dpd:buckets.{role}.name", found
    )


def test_one_name_for_two_buckets_is_refused():
    buckets = {"model": {"name": "acme-dpd-shared"}, "logs": {"name": "acme-dpd-shared"}}
    found = bucket_problems(buckets)
    assert "already the logs bucket's name" in problem_for("hyperpod-dpd:buckets.model.name", found)


REFUSED_IN_WORDS = {
    "a configured bucket name S3 refuses": (
        {"model": {"name": "models..team"}},
        "hyperpod-dpd:buckets.model.name: 'models..team' must not hold two adjacent periods or "
        "look like an IP address",
    ),
    "a KMS alias where a key ARN goes": (
        {"kmsKeyArn": "alias/aws/s3"},
        "hyperpod-dpd:buckets.kmsKeyArn: 'alias/aws/s3' is not allowed; must be a KMS key ARN "
        "such as arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
    ),
}


@pytest.mark.parametrize("case", REFUSED_IN_WORDS)
def test_a_refusal_says_what_is_wrong(case):
    buckets, line = REFUSED_IN_WORDS[case]
    assert bucket_problems(buckets) == [line]
