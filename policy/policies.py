"""The pack's four policies: the program's own rules, applied to what the engine sees.

The engine hands over each resource's inputs in camelCase. In a preview of a new stack, whatever
another resource outputs (IDs above all) is unknown, and reading it fails the policy; so
resources are related through the dependencies of their inputs, never through IDs.
"""

from __future__ import annotations

from collections.abc import Mapping

from pulumi_policy import (
    PolicyResource,
    ReportViolation,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.proxy import UnknownValueError

from components.cluster.instance_types import DPD_INSTANCE_TYPES
from components.endpoint.environment import PD_BUFFER_SIZE, PINNED_ENV
from components.endpoint.guardrails import endpoint_violations
from components.endpoint.kind import API_VERSION, KIND
from components.network.efa_rules import EfaRule, ExistingRule, missing_self_rules
from components.operator.versions import (
    ADDON_NAME,
    MINIMUM_OPERATOR,
    OPERATOR_VERSION_TAG,
    VersionError,
    operator_version,
)
from components.storage.hardening import (
    PUBLIC_ACCESS_BLOCK_FLAGS,
    SSE_ALGORITHMS,
    bucket_violations,
)

ENDPOINT = f"kubernetes:{API_VERSION}:{KIND}"
SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
RULE_TYPES = {
    "ingress": "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
    "egress": "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
}
BUCKET = "aws:s3/bucket:Bucket"
BUCKET_ENCRYPTION = (
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"
)
BUCKET_PUBLIC_ACCESS_BLOCK = "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock"
BUCKET_ACL = "aws:s3/bucketAcl:BucketAcl"
ADDON = "aws:eks/addon:Addon"


def _known(props: Mapping, key: str) -> object:
    """The input `key`, or None where it is absent or, in a preview, not known yet."""
    try:
        return props.get(key)
    except UnknownValueError:
        return None


def _comes_from(resource: PolicyResource, key: str, source: PolicyResource) -> bool:
    """Whether `resource`'s input `key` is computed from `source`."""
    return any(d.urn == source.urn for d in resource.property_dependencies.get(key, []))


def validate_dpd_endpoint(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    if args.resource_type != ENDPOINT:
        return
    for violation in endpoint_violations(args.props.get("spec") or {}):
        report_violation(f"spec.{violation}")


def _existing_rule(rule: PolicyResource, group: PolicyResource) -> ExistingRule:
    """A rule of `group`, in which the group stands for itself by its URN."""
    from_group = _comes_from(rule, "referencedSecurityGroupId", group)
    return ExistingRule(
        is_egress=rule.resource_type == RULE_TYPES["egress"],
        protocol=rule.props.get("ipProtocol"),
        from_port=rule.props.get("fromPort"),
        to_port=rule.props.get("toPort"),
        cidr_ipv4=_known(rule.props, "cidrIpv4"),
        referenced_group_id=group.urn if from_group else None,
    )


def _missing_self_rule(group: PolicyResource, rule: EfaRule) -> str:
    return (
        f"security group {group.name!r} has no {rule.direction} rule for all traffic within "
        f"itself ({rule.name}), and EFA needs one in each direction; add a rule of type "
        f"{RULE_TYPES[rule.direction]} with ipProtocol -1 and the group's id as both "
        "securityGroupId and referencedSecurityGroupId"
    )


def validate_efa_self_rules(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    rules = [r for r in args.resources if r.resource_type in RULE_TYPES.values()]
    for group in args.resources:
        if group.resource_type != SECURITY_GROUP:
            continue
        existing = [
            _existing_rule(r, group) for r in rules if _comes_from(r, "securityGroupId", group)
        ]
        for missing in missing_self_rules(existing, group.urn):
            report_violation(_missing_self_rule(group, missing), group.urn)


def _configures(resource: PolicyResource, bucket: PolicyResource) -> bool:
    """Whether `resource` is about `bucket`: its `bucket` input comes from the bucket or, when it
    comes from no resource at all, names it."""
    if resource.property_dependencies.get("bucket"):
        return _comes_from(resource, "bucket", bucket)
    name = _known(resource.props, "bucket")
    return name is not None and name == _known(bucket.props, "bucket")


def _inputs_of(resources: list[PolicyResource], resource_type: str) -> list[Mapping]:
    return [r.props for r in resources if r.resource_type == resource_type]


def validate_buckets(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    for bucket in args.resources:
        if bucket.resource_type != BUCKET:
            continue
        settings = [r for r in args.resources if _configures(r, bucket)]
        violations = bucket_violations(
            encryptions=_inputs_of(settings, BUCKET_ENCRYPTION),
            public_access_blocks=_inputs_of(settings, BUCKET_PUBLIC_ACCESS_BLOCK),
            acls=[_known(p, "acl") for p in [bucket.props, *_inputs_of(settings, BUCKET_ACL)]],
        )
        for violation in violations:
            report_violation(f"bucket {bucket.name!r} {violation}", bucket.urn)


def validate_inference_operator(
    args: ResourceValidationArgs, report_violation: ReportViolation
) -> None:
    if args.resource_type != ADDON or args.props.get("addonName") != ADDON_NAME:
        return
    addon_version = args.props.get("addonVersion")
    if not addon_version:
        report_violation(
            f"addonVersion is not set, so EKS picks one; pin a version that ships operator "
            f"{MINIMUM_OPERATOR} or later"
        )
        return
    declared = (args.props.get("tags") or {}).get(OPERATOR_VERSION_TAG)
    try:
        operator_version(addon_version, declared)
    except VersionError as refused:
        untagged = "" if declared else f" The add-on has no {OPERATOR_VERSION_TAG} tag."
        report_violation(f"{refused}.{untagged}")


DPD_ENDPOINT = ResourceValidationPolicy(
    name="dpd-endpoint-instance-and-env",
    description=(
        f"An InferenceEndpointConfig with pdSpec runs on {', '.join(DPD_INSTANCE_TYPES)}, with "
        f"{PD_BUFFER_SIZE} and {', '.join(f'{k}={v}' for k, v in PINNED_ENV.items())} in "
        "worker.environmentVariables."
    ),
    validate=validate_dpd_endpoint,
)
EFA_SELF_RULES = StackValidationPolicy(
    name="efa-self-rules",
    description=(
        "Every security group allows all traffic from itself and to itself, through separate "
        "ingress and egress rules: EFA needs both, and a missing self egress rule is the "
        "leading cause of failing EFA health checks."
    ),
    validate=validate_efa_self_rules,
)
BUCKETS_ENCRYPTED_PRIVATE = StackValidationPolicy(
    name="buckets-encrypted-private",
    description=(
        f"Every S3 bucket has default encryption ({' or '.join(SSE_ALGORITHMS)}), a public "
        f"access block with {', '.join(PUBLIC_ACCESS_BLOCK_FLAGS)} all true, and no public "
        "canned ACL."
    ),
    validate=validate_buckets,
)
INFERENCE_OPERATOR_MINIMUM = ResourceValidationPolicy(
    name="inference-operator-minimum",
    description=(
        f"The {ADDON_NAME} add-on ships HyperPod Inference Operator {MINIMUM_OPERATOR} or "
        "later, the first with DPD: older operators crash DPD pods with EngineDeadError."
    ),
    validate=validate_inference_operator,
)

POLICIES = [DPD_ENDPOINT, EFA_SELF_RULES, BUCKETS_ENCRYPTED_PRIVATE, INFERENCE_OPERATOR_MINIMUM]
