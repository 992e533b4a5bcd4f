"""The pack's policies: the program's own rules, applied to what the engine sees. In a preview
of a new stack another resource's outputs (IDs above all) are unknown, so resources are related
through the dependencies of their inputs, never through IDs."""

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

from components.cluster.endpoint_access import open_to_world_by_default
from components.cluster.instance_types import DPD_INSTANCE_TYPES
from components.core.cidrs import WORLD_CIDRS, world_cidrs
from components.endpoint.environment import PD_BUFFER_SIZE, PINNED_ENV
from components.endpoint.guardrails import endpoint_violations
from components.endpoint.kind import API_VERSION, KIND
from components.network.efa_rules import ExistingRule, missing_self_rules
from components.operator.versions import (
    ADDON_NAME,
    MINIMUM_OPERATOR,
    OPERATOR_VERSION_TAG,
    VersionError,
    operator_version,
)
from components.storage.hardening import (
    MODEL_BUCKET_RESOURCE,
    PUBLIC_ACCESS_BLOCK_FLAGS,
    SSE_ALGORITHMS,
    bucket_violations,
    model_bucket_violations,
)

ENDPOINT = f"kubernetes:{API_VERSION}:{KIND}"
SECURITY_GROUP = "aws:ec2/securityGroup:SecurityGroup"
RULE_TYPES = {
    "ingress": "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
    "egress": "aws:vpc/securityGroupEgressRule:SecurityGroupEgressRule",
}
SECURITY_GROUP_RULE = "aws:ec2/securityGroupRule:SecurityGroupRule"
NATIVE_INGRESS = "aws-native:ec2:SecurityGroupIngress"
BUCKET = "aws:s3/bucket:Bucket"
BUCKET_V2 = "aws:s3/bucketV2:BucketV2"
NATIVE_BUCKET = "aws-native:s3:Bucket"
BUCKET_ENCRYPTION = (
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"
)
BUCKET_ENCRYPTION_V2 = (
    "aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2"
)
BUCKET_PUBLIC_ACCESS_BLOCK = "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock"
BUCKET_ACL = "aws:s3/bucketAcl:BucketAcl"
BUCKET_ACL_V2 = "aws:s3/bucketAclV2:BucketAclV2"
BUCKET_VERSIONING = (
    "aws:s3/bucketVersioning:BucketVersioning",
    "aws:s3/bucketVersioningV2:BucketVersioningV2",
)
# CloudFormation's canned ACL names, as aws-native's accessControl takes them.
NATIVE_ACLS = {
    "PublicRead": "public-read",
    "PublicReadWrite": "public-read-write",
    "AuthenticatedRead": "authenticated-read",
}
ADDON = "aws:eks/addon:Addon"
EKS_COMPONENT = "eks:index:Cluster"
EKS_CLUSTER = "aws:eks/cluster:Cluster"


def _known(props: Mapping, key: str) -> object:
    """The input `key`, or None where it is absent or, in a preview, not known yet."""
    try:
        return props.get(key)
    except UnknownValueError:
        return None


def _comes_from(resource: PolicyResource, key: str, source: PolicyResource) -> bool:
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


def validate_efa_self_rules(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    rules = [r for r in args.resources if r.resource_type in RULE_TYPES.values()]
    for group in args.resources:
        if group.resource_type != SECURITY_GROUP:
            continue
        existing = [
            _existing_rule(r, group) for r in rules if _comes_from(r, "securityGroupId", group)
        ]
        for missing in missing_self_rules(existing, group.urn):
            report_violation(
                f"security group {group.name!r} has no {missing.direction} rule for all traffic "
                f"within itself ({missing.name}), and EFA needs one in each direction; add a "
                f"rule of type {RULE_TYPES[missing.direction]} with ipProtocol -1 and the "
                "group's id as both securityGroupId and referencedSecurityGroupId",
                group.urn,
            )


def _configures(resource: PolicyResource, bucket: PolicyResource) -> bool:
    """Whether `resource` is about `bucket`: its `bucket` input comes from the bucket or, when it
    comes from no resource at all, names it."""
    if resource.property_dependencies.get("bucket"):
        return _comes_from(resource, "bucket", bucket)
    name = _known(resource.props, "bucket")
    return name is not None and name == _known(bucket.props, "bucket")


def _inputs_of(resources: list[PolicyResource], *resource_types: str) -> list[Mapping]:
    return [r.props for r in resources if r.resource_type in resource_types]


def _native_bucket_violations(bucket: PolicyResource) -> list[str]:
    """aws-native's bucket holds its settings inline, in CloudFormation's shape."""
    props = bucket.props
    encryption = _known(props, "bucketEncryption") or {}
    rules = [
        {"applyServerSideEncryptionByDefault": rule.get("serverSideEncryptionByDefault") or {}}
        for rule in encryption.get("serverSideEncryptionConfiguration") or []
    ]
    block = _known(props, "publicAccessBlockConfiguration")
    return bucket_violations(
        encryptions=[{"rules": rules}] if rules else [],
        public_access_blocks=[block] if block else [],
        acls=[NATIVE_ACLS.get(_known(props, "accessControl"), _known(props, "accessControl"))],
    )


def validate_buckets(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    for bucket in args.resources:
        if bucket.resource_type == NATIVE_BUCKET:
            violations = _native_bucket_violations(bucket)
        elif bucket.resource_type in (BUCKET, BUCKET_V2):
            settings = [r for r in args.resources if _configures(r, bucket)]
            acls = _inputs_of(settings, BUCKET_ACL, BUCKET_ACL_V2)
            violations = bucket_violations(
                encryptions=_inputs_of(settings, BUCKET_ENCRYPTION, BUCKET_ENCRYPTION_V2),
                public_access_blocks=_inputs_of(settings, BUCKET_PUBLIC_ACCESS_BLOCK),
                acls=[_known(p, "acl") for p in [bucket.props, *acls]],
            )
        else:
            continue
        for violation in violations:
            report_violation(f"bucket {bucket.name!r} {violation}", bucket.urn)


def validate_model_bucket(args: StackValidationArgs, report_violation: ReportViolation) -> None:
    for bucket in args.resources:
        if bucket.resource_type not in (BUCKET, BUCKET_V2) or bucket.name != MODEL_BUCKET_RESOURCE:
            continue
        versionings = [
            r.props
            for r in args.resources
            if r.resource_type in BUCKET_VERSIONING and _configures(r, bucket)
        ]
        violations = model_bucket_violations(
            force_destroy=_known(bucket.props, "forceDestroy") is True,
            versioning_statuses=[
                (_known(v, "versioningConfiguration") or {}).get("status") for v in versionings
            ],
        )
        for violation in violations:
            report_violation(f"the model bucket {bucket.name!r} {violation}", bucket.urn)


def _ingress_cidrs(resource_type: str, props: Mapping) -> list[str | None]:
    if resource_type == RULE_TYPES["ingress"]:
        return [_known(props, "cidrIpv4"), _known(props, "cidrIpv6")]
    if resource_type == NATIVE_INGRESS:
        return [_known(props, "cidrIp"), _known(props, "cidrIpv6")]
    if resource_type == SECURITY_GROUP_RULE and _known(props, "type") == "ingress":
        return [*(_known(props, "cidrBlocks") or []), *(_known(props, "ipv6CidrBlocks") or [])]
    if resource_type == SECURITY_GROUP:
        return [
            cidr
            for rule in _known(props, "ingress") or []
            for cidr in [*(rule.get("cidrBlocks") or []), *(rule.get("ipv6CidrBlocks") or [])]
        ]
    return []


def validate_no_world_ingress(
    args: ResourceValidationArgs, report_violation: ReportViolation
) -> None:
    for cidr in world_cidrs(_ingress_cidrs(args.resource_type, args.props)):
        report_violation(
            f"lets in {cidr}, the whole internet; allow the VPC's CIDR, a known range or a "
            "security group instead"
        )


def validate_eks_endpoint(args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
    # The providers' defaults make the endpoint public, and open to every CIDR, unless told.
    if args.resource_type == EKS_COMPONENT:
        access = args.props
    elif args.resource_type == EKS_CLUSTER:
        access = _known(args.props, "vpcConfig") or {}
    else:
        return
    public = access.get("endpointPublicAccess") is not False
    if open_to_world_by_default(public=public, public_cidrs=access.get("publicAccessCidrs")):
        report_violation(
            "the public API endpoint takes EKS's default of 0.0.0.0/0, since publicAccessCidrs "
            "is unset; list the CIDRs allowed (cluster.endpointAccess.publicCidrs), make the "
            "endpoint private, or write 0.0.0.0/0 to open it to the world explicitly"
        )


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
        "Every S3 bucket (aws Bucket and BucketV2, aws-native Bucket) has default encryption "
        f"({' or '.join(SSE_ALGORITHMS)}), a public access block with "
        f"{', '.join(PUBLIC_ACCESS_BLOCK_FLAGS)} all true, and no public canned ACL (on the "
        "bucket, or through BucketAcl or BucketAclV2)."
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

MODEL_BUCKET_KEPT = StackValidationPolicy(
    name="model-bucket-kept",
    description=(
        f"The model bucket ({MODEL_BUCKET_RESOURCE!r}) is versioned and never emptied on "
        "deletion: its weights take hours to copy in, and endpoints read them."
    ),
    validate=validate_model_bucket,
)
NO_WORLD_INGRESS = ResourceValidationPolicy(
    name="no-world-ingress",
    description=(
        f"No security group ingress from {' or '.join(WORLD_CIDRS)}: the cluster's groups admit "
        "the VPC and themselves only."
    ),
    validate=validate_no_world_ingress,
)
EKS_ENDPOINT_NOT_WORLD_BY_DEFAULT = ResourceValidationPolicy(
    name="eks-endpoint-not-world-by-default",
    description=(
        "An EKS cluster with a public API endpoint lists the CIDRs allowed to reach it; "
        "0.0.0.0/0 only when written out."
    ),
    validate=validate_eks_endpoint,
)

POLICIES = [
    DPD_ENDPOINT,
    EFA_SELF_RULES,
    BUCKETS_ENCRYPTED_PRIVATE,
    INFERENCE_OPERATOR_MINIMUM,
    MODEL_BUCKET_KEPT,
    NO_WORLD_INGRESS,
    EKS_ENDPOINT_NOT_WORLD_BY_DEFAULT,
]
