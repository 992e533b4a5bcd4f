"""Each policy against the dev stack as rendered, and against resources that break its rule."""

import pytest

from components.cluster.instance_types import DPD_INSTANCE_TYPES
from policy.policies import (
    ADDON,
    BUCKET,
    BUCKET_ACL,
    BUCKET_ACL_V2,
    BUCKET_ENCRYPTION,
    BUCKET_PUBLIC_ACCESS_BLOCK,
    BUCKET_V2,
    BUCKET_VERSIONING,
    BUCKETS_ENCRYPTED_PRIVATE,
    DPD_ENDPOINT,
    EFA_SELF_RULES,
    EKS_COMPONENT,
    EKS_ENDPOINT_NOT_WORLD_BY_DEFAULT,
    ENDPOINT,
    INFERENCE_OPERATOR_MINIMUM,
    MODEL_BUCKET_KEPT,
    NATIVE_BUCKET,
    NO_WORLD_INGRESS,
    RULE_TYPES,
    SECURITY_GROUP,
)
from policy.tests.stack import (
    dev_stack,
    in_preview,
    one,
    resource_violations,
    stack_violations,
    without,
)

DPD_TYPES = ", ".join(DPD_INSTANCE_TYPES)


@pytest.mark.parametrize("preview", [False, True], ids=["up", "preview"])
@pytest.mark.parametrize(
    "policy",
    [
        DPD_ENDPOINT,
        INFERENCE_OPERATOR_MINIMUM,
        NO_WORLD_INGRESS,
        EKS_ENDPOINT_NOT_WORLD_BY_DEFAULT,
    ],
    ids=lambda p: p.name,
)
def test_every_resource_of_the_dev_stack_keeps_the_resource_policies(policy, preview):
    stack = in_preview(dev_stack()) if preview else dev_stack()
    assert resource_violations(policy, stack) == []


@pytest.mark.parametrize("preview", [False, True], ids=["up", "preview"])
@pytest.mark.parametrize(
    "policy", [EFA_SELF_RULES, BUCKETS_ENCRYPTED_PRIVATE, MODEL_BUCKET_KEPT], ids=lambda p: p.name
)
def test_the_dev_stack_keeps_the_stack_policies(policy, preview):
    stack = in_preview(dev_stack()) if preview else dev_stack()
    assert stack_violations(policy, stack) == []


# dpd-endpoint-instance-and-env


def dpd_endpoint(stack: list[dict]) -> dict:
    return one(stack, ENDPOINT, "default/dpd-test")


def test_an_endpoint_off_the_dpd_instance_types_is_refused():
    stack = dev_stack()
    dpd_endpoint(stack)["inputs"]["spec"]["instanceType"] = "ml.g5.48xlarge"
    assert resource_violations(DPD_ENDPOINT, stack) == [
        (
            f"spec.instanceType: 'ml.g5.48xlarge' is not allowed; DPD runs only on {DPD_TYPES}",
            dpd_endpoint(stack)["urn"],
        )
    ]


def test_an_endpoint_without_the_pinned_hash_seed_is_refused():
    stack = dev_stack()
    worker = dpd_endpoint(stack)["inputs"]["spec"]["worker"]
    worker["environmentVariables"] = [
        v for v in worker["environmentVariables"] if v["name"] != "PYTHONHASHSEED"
    ]
    assert [message for message, _ in resource_violations(DPD_ENDPOINT, stack)] == [
        "spec.worker.environmentVariables: PYTHONHASHSEED is not set; DPD needs PYTHONHASHSEED=0"
    ]


def test_an_endpoint_with_the_decoder_saving_its_cache_is_refused():
    stack = dev_stack()
    for variable in dpd_endpoint(stack)["inputs"]["spec"]["worker"]["environmentVariables"]:
        if variable["name"] == "LMCACHE_SAVE_DECODE_CACHE":
            variable["value"] = "True"
    assert [message for message, _ in resource_violations(DPD_ENDPOINT, stack)] == [
        "spec.worker.environmentVariables: LMCACHE_SAVE_DECODE_CACHE is 'True'; "
        "DPD needs LMCACHE_SAVE_DECODE_CACHE=False"
    ]


def test_an_endpoint_without_pd_spec_is_not_dpd_and_left_alone():
    stack = dev_stack()
    spec = dpd_endpoint(stack)["inputs"]["spec"]
    del spec["pdSpec"]
    spec["instanceType"] = "ml.g5.48xlarge"
    assert resource_violations(DPD_ENDPOINT, stack) == []


# efa-self-rules


def efa_group(stack: list[dict]) -> dict:
    return one(stack, SECURITY_GROUP, "efa")


@pytest.mark.parametrize("preview", [False, True])
def test_a_group_without_its_self_egress_rule_is_refused(preview):
    stack = without(dev_stack(), RULE_TYPES["egress"], "efa-egress-any-all-self")
    stack = in_preview(stack) if preview else stack
    assert stack_violations(EFA_SELF_RULES, stack) == [
        (
            "security group 'efa' has no egress rule for all traffic within itself "
            "(egress-any-all-self), and EFA needs one in each direction; add a rule of type "
            "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule with ipProtocol -1 and the "
            "group's id as both securityGroupId and referencedSecurityGroupId",
            efa_group(stack)["urn"],
        )
    ]


def test_a_group_without_its_self_ingress_rule_is_refused():
    stack = without(dev_stack(), RULE_TYPES["ingress"], "efa-ingress-any-all-self")
    # The FSx rules from the group itself, on TCP ports only, do not stand for it.
    ((message, urn),) = stack_violations(EFA_SELF_RULES, stack)
    assert message.startswith(
        "security group 'efa' has no ingress rule for all traffic within itself"
    )
    assert urn == efa_group(stack)["urn"]


def test_a_rule_towards_another_group_is_not_a_self_rule():
    stack = dev_stack()
    rule = one(stack, RULE_TYPES["egress"], "efa-egress-any-all-self")
    rule["inputs"]["referencedSecurityGroupId"] = "sg-0123456789abcdef0"
    del rule["propertyDependencies"]["referencedSecurityGroupId"]
    ((message, urn),) = stack_violations(EFA_SELF_RULES, stack)
    assert message.startswith("security group 'efa' has no egress rule for all traffic")
    assert urn == efa_group(stack)["urn"]


# buckets-encrypted-private


def bucket_urn(stack: list[dict], name: str) -> str:
    return one(stack, BUCKET, name)["urn"]


@pytest.mark.parametrize("preview", [False, True])
def test_a_bucket_without_encryption_is_refused(preview):
    stack = without(dev_stack(), BUCKET_ENCRYPTION, "model-weights")
    stack = in_preview(stack) if preview else stack
    assert stack_violations(BUCKETS_ENCRYPTED_PRIVATE, stack) == [
        (
            "bucket 'model-weights' has no default encryption; add a server-side encryption "
            "configuration with AES256 or aws:kms",
            bucket_urn(stack, "model-weights"),
        )
    ]


def test_a_bucket_without_a_public_access_block_is_refused():
    stack = without(dev_stack(), BUCKET_PUBLIC_ACCESS_BLOCK, "tls-certificates")
    assert stack_violations(BUCKETS_ENCRYPTED_PRIVATE, stack) == [
        (
            "bucket 'tls-certificates' has no public access block; add one with "
            "blockPublicAcls, blockPublicPolicy, ignorePublicAcls, restrictPublicBuckets all true",
            bucket_urn(stack, "tls-certificates"),
        )
    ]


def test_a_public_access_block_with_a_switch_off_is_refused():
    stack = dev_stack()
    one(stack, BUCKET_PUBLIC_ACCESS_BLOCK, "lifecycle")["inputs"]["blockPublicPolicy"] = False
    ((message, urn),) = stack_violations(BUCKETS_ENCRYPTED_PRIVATE, stack)
    assert message.startswith("bucket 'lifecycle' has blockPublicPolicy off")
    assert urn == bucket_urn(stack, "lifecycle")


def test_a_public_acl_on_the_bucket_is_refused():
    stack = dev_stack()
    one(stack, BUCKET, "access-logs")["inputs"]["acl"] = "public-read"
    assert stack_violations(BUCKETS_ENCRYPTED_PRIVATE, stack) == [
        (
            "bucket 'access-logs' has the ACL 'public-read', which makes it public; use private",
            bucket_urn(stack, "access-logs"),
        )
    ]


def acl_naming(bucket: dict, acl_type: str, acl: str) -> dict:
    """A canned ACL resource that names `bucket` (and depends on no resource)."""
    return {
        "type": acl_type,
        "name": "open",
        "urn": bucket["urn"] + "-open",
        "inputs": {"bucket": bucket["inputs"]["bucket"], "acl": acl},
        "propertyDependencies": {},
        "protect": False,
    }


def test_a_public_acl_resource_naming_the_bucket_is_refused():
    stack = dev_stack()
    bucket = one(stack, BUCKET, "model-weights")
    acl = acl_naming(bucket, BUCKET_ACL, "public-read-write")
    assert stack_violations(BUCKETS_ENCRYPTED_PRIVATE, [*stack, acl]) == [
        (
            "bucket 'model-weights' has the ACL 'public-read-write', which makes it public; "
            "use private",
            bucket["urn"],
        )
    ]


def test_another_buckets_encryption_does_not_count():
    stack = dev_stack()
    encryption = one(stack, BUCKET_ENCRYPTION, "model-weights")
    encryption["propertyDependencies"]["bucket"] = [bucket_urn(stack, "lifecycle")]
    reported = stack_violations(BUCKETS_ENCRYPTED_PRIVATE, stack)
    assert [urn for _, urn in reported] == [bucket_urn(stack, "model-weights")]


# inference-operator-minimum


def operator_addon(stack: list[dict]) -> dict:
    return one(stack, ADDON, "inference-operator")


def operator_violations(addon_version: str | None, tags: dict | None) -> list[str]:
    stack = dev_stack()
    inputs = operator_addon(stack)["inputs"]
    inputs["addonVersion"] = addon_version
    inputs["tags"] = tags
    return [message for message, _ in resource_violations(INFERENCE_OPERATOR_MINIMUM, stack)]


TAG = "hyperpod-dpd/operator-version"


def test_an_add_on_shipping_an_operator_without_dpd_is_refused():
    assert operator_violations("v1.2.1-eksbuild.1", {TAG: "3.1.3"}) == [
        "v1.2.1-eksbuild.1 ships operator 3.1.3; DPD needs operator 3.2 or later, which is "
        "add-on v1.3.0-eksbuild.1 or later."
    ]


def test_the_first_add_on_with_dpd_passes_tagged_or_not():
    assert operator_violations("v1.3.0-eksbuild.1", {TAG: "3.2"}) == []
    assert operator_violations("v1.3.0-eksbuild.1", None) == []


def test_a_newer_add_on_passes_with_the_operator_its_tag_names():
    assert operator_violations("v1.6.0-eksbuild.1", {TAG: "3.5"}) == []


def test_a_newer_add_on_without_the_tag_is_refused_saying_so():
    (message,) = operator_violations("v1.6.0-eksbuild.1", None)
    assert message.startswith("v1.6.0-eksbuild.1 is not a version this project knows")
    assert message.endswith(f"The add-on has no {TAG} tag.")


def test_a_tag_naming_an_older_operator_is_refused():
    (message,) = operator_violations("v1.6.0-eksbuild.1", {TAG: "3.1"})
    assert message.startswith("v1.6.0-eksbuild.1 ships operator 3.1; DPD needs operator 3.2")


def test_a_tag_that_contradicts_the_table_is_refused():
    assert operator_violations("v1.5.0-eksbuild.1", {TAG: "3.5"}) == [
        "v1.5.0-eksbuild.1 ships operator 3.4, not 3.5."
    ]


def test_an_unpinned_add_on_is_refused():
    assert operator_violations(None, {TAG: "3.4"}) == [
        "addonVersion is not set, so EKS picks one; pin a version that ships operator 3.2 or later"
    ]


def test_other_add_ons_are_left_alone():
    stack = dev_stack()
    coredns = one(stack, ADDON, "node-addons-coredns")
    coredns["inputs"]["addonVersion"] = "v1.0.0-eksbuild.1"
    assert resource_violations(INFERENCE_OPERATOR_MINIMUM, [coredns]) == []


def test_a_public_bucket_acl_v2_naming_a_bucket_v2_is_refused():
    stack = dev_stack()
    bucket = one(stack, BUCKET, "access-logs")
    bucket["type"] = BUCKET_V2
    acl = acl_naming(bucket, BUCKET_ACL_V2, "public-read")
    assert stack_violations(BUCKETS_ENCRYPTED_PRIVATE, [*stack, acl]) == [
        (
            "bucket 'access-logs' has the ACL 'public-read', which makes it public; use private",
            bucket["urn"],
        )
    ]


def native_bucket(**inputs) -> dict:
    return {
        "type": NATIVE_BUCKET,
        "name": "native",
        "urn": "urn:pulumi:dev::hyperpod-dpd::aws-native:s3:Bucket::native",
        "inputs": inputs,
        "propertyDependencies": {},
        "protect": False,
    }


def test_an_aws_native_bucket_is_held_to_the_same_rules():
    hardened = native_bucket(
        bucketEncryption={
            "serverSideEncryptionConfiguration": [
                {"serverSideEncryptionByDefault": {"sseAlgorithm": "aws:kms"}}
            ]
        },
        publicAccessBlockConfiguration={
            "blockPublicAcls": True,
            "blockPublicPolicy": True,
            "ignorePublicAcls": True,
            "restrictPublicBuckets": True,
        },
    )
    assert stack_violations(BUCKETS_ENCRYPTED_PRIVATE, [hardened]) == []
    public = native_bucket(accessControl="PublicRead")
    messages = [m for m, _ in stack_violations(BUCKETS_ENCRYPTED_PRIVATE, [public])]
    assert messages == [
        "bucket 'native' has no default encryption; add a server-side encryption configuration "
        "with AES256 or aws:kms",
        "bucket 'native' has no public access block; add one with blockPublicAcls, "
        "blockPublicPolicy, ignorePublicAcls, restrictPublicBuckets all true",
        "bucket 'native' has the ACL 'public-read', which makes it public; use private",
    ]


# model-bucket-kept


def test_a_model_bucket_emptied_on_deletion_is_refused():
    stack = dev_stack()
    one(stack, BUCKET, "model-weights")["inputs"]["forceDestroy"] = True
    assert stack_violations(MODEL_BUCKET_KEPT, stack) == [
        (
            "the model bucket 'model-weights' is emptied when deleted; set forceDestroy=False "
            "on it",
            bucket_urn(stack, "model-weights"),
        )
    ]


def test_the_other_buckets_may_empty_themselves():
    stack = dev_stack()
    emptied = [r["name"] for r in stack if r["type"] == BUCKET and r["inputs"].get("forceDestroy")]
    assert sorted(emptied) == ["access-logs", "lifecycle", "tls-certificates"]
    assert stack_violations(MODEL_BUCKET_KEPT, stack) == []


@pytest.mark.parametrize("preview", [False, True])
def test_an_unversioned_model_bucket_is_refused(preview):
    stack = without(dev_stack(), BUCKET_VERSIONING[0], "model-weights")
    stack = in_preview(stack) if preview else stack
    ((message, urn),) = stack_violations(MODEL_BUCKET_KEPT, stack)
    assert message.startswith("the model bucket 'model-weights' is not versioned")
    assert urn == bucket_urn(stack, "model-weights")


# no-world-ingress


@pytest.mark.parametrize("key, cidr", [("cidrIpv4", "0.0.0.0/0"), ("cidrIpv6", "::/0")])
def test_ingress_from_the_whole_internet_is_refused(key, cidr):
    stack = dev_stack()
    rule = next(r for r in stack if r["type"] == RULE_TYPES["ingress"])
    rule["inputs"] = {**rule["inputs"], key: cidr}
    ((message, urn),) = resource_violations(NO_WORLD_INGRESS, stack)
    assert message.startswith(f"lets in {cidr}, the whole internet")
    assert urn == rule["urn"]


def test_a_groups_inline_ingress_from_the_internet_is_refused():
    stack = dev_stack()
    group = one(stack, SECURITY_GROUP, "efa")
    group["inputs"]["ingress"] = [{"protocol": "tcp", "cidrBlocks": ["10.0.0.0/16", "0.0.0.0/0"]}]
    assert [m for m, _ in resource_violations(NO_WORLD_INGRESS, stack)] == [
        "lets in 0.0.0.0/0, the whole internet; allow the VPC's CIDR, a known range or a "
        "security group instead"
    ]


# eks-endpoint-not-world-by-default


def eks_violations(**changes) -> list[str]:
    stack = dev_stack()
    cluster = next(r for r in stack if r["type"] == EKS_COMPONENT)
    cluster["inputs"].update(changes)
    for key in [k for k, v in changes.items() if v is None]:
        del cluster["inputs"][key]
    return [m for m, _ in resource_violations(EKS_ENDPOINT_NOT_WORLD_BY_DEFAULT, stack)]


def test_a_public_eks_endpoint_without_cidrs_is_refused():
    (message,) = eks_violations(publicAccessCidrs=None)
    assert message.startswith("the public API endpoint takes EKS's default of 0.0.0.0/0")


def test_a_public_endpoint_is_public_unless_said_otherwise():
    assert eks_violations(publicAccessCidrs=None, endpointPublicAccess=None)


@pytest.mark.parametrize(
    "changes",
    [
        {"publicAccessCidrs": ["0.0.0.0/0"]},
        {"publicAccessCidrs": ["203.0.113.0/24"]},
        {"publicAccessCidrs": None, "endpointPublicAccess": False},
    ],
    ids=["world-written-out", "a-range", "private"],
)
def test_an_endpoint_open_on_purpose_limited_or_private_passes(changes):
    assert eks_violations(**changes) == []
