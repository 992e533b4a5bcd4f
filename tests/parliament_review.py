"""parliament over every IAM document of a render, with each finding we accept explained.

Nothing is skipped by document: every document is analyzed, and a finding passes only when it
matches an entry below, which says why it is wrong or why we keep what it flags.
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass

from parliament import analyze_policy_string

from components.operator.load_balancer_policy import CONTROLLER_VERSION
from tests.iam_documents import IamDocument, iam_documents
from tools.render.render import Registration

LOAD_BALANCER_POLICY = "RolePolicy inference-operator-load-balancer-controller"


@dataclass(frozen=True)
class Accepted:
    issue: str
    # Where the finding may occur: "trust" for every trust policy, else one document's label.
    where: str
    reason: str
    # For findings about actions: the detail must name only these (None: any detail).
    actions: frozenset[str] | None = None


def _upstream_star(*actions: str) -> Accepted:
    return Accepted(
        "RESOURCE_STAR",
        LOAD_BALANCER_POLICY,
        f"the controller's own policy ({CONTROLLER_VERSION}) grants these on *: the controller "
        "creates and looks up resources before it can know their ARNs",
        frozenset(actions),
    )


ACCEPTED = [
    # parliament reads every document as an identity policy.
    Accepted(
        "MALFORMED",
        "trust",
        "a trust policy has a Principal and no Resource; parliament expects a Resource",
    ),
    Accepted(
        "UNKNOWN_FEDERATION_SOURCE",
        "trust",
        "the federated principal is the EKS cluster's own OIDC provider (IRSA), which "
        "parliament's list of federation sources does not know",
    ),
    Accepted(
        "UNKNOWN_ACTION",
        LOAD_BALANCER_POLICY,
        "elasticloadbalancing:ModifyIpPools is newer than parliament 1.6.4's action database; "
        "the controller calls it for IPAM pools",
    ),
    Accepted(
        "UNKNOWN_CONDITION_FOR_ACTION",
        LOAD_BALANCER_POLICY,
        "elasticloadbalancing:CreateAction (tagging on create) is newer than parliament's "
        "condition database; AWS documents it for AddTags",
    ),
    _upstream_star("iam:CreateServiceLinkedRole"),
    _upstream_star("ec2:GetCoipPoolUsage", "ec2:GetSecurityGroupsForVpc"),
    _upstream_star(
        "acm:DescribeCertificate",
        "cognito-idp:DescribeUserPoolClient",
        "iam:GetServerCertificate",
        "shield:DeleteProtection",
        "shield:DescribeProtection",
        "waf-regional:AssociateWebACL",
        "waf-regional:DisassociateWebACL",
        "waf-regional:GetWebACL",
        "waf-regional:GetWebACLForResource",
        "wafv2:AssociateWebACL",
        "wafv2:GetWebACL",
        "wafv2:GetWebACLForResource",
    ),
    _upstream_star("ec2:AuthorizeSecurityGroupIngress", "ec2:RevokeSecurityGroupIngress"),
    _upstream_star("ec2:CreateSecurityGroup"),
    # These three carry the cluster-tag condition: the star is confined by it.
    _upstream_star(
        "ec2:AuthorizeSecurityGroupIngress",
        "ec2:DeleteSecurityGroup",
        "ec2:RevokeSecurityGroupIngress",
    ),
    _upstream_star("elasticloadbalancing:CreateTargetGroup"),
    _upstream_star(
        "elasticloadbalancing:CreateRule",
        "elasticloadbalancing:DeleteListener",
        "elasticloadbalancing:DeleteRule",
    ),
    _upstream_star(
        "elasticloadbalancing:AddListenerCertificates",
        "elasticloadbalancing:ModifyListener",
        "elasticloadbalancing:ModifyRule",
        "elasticloadbalancing:RemoveListenerCertificates",
        "elasticloadbalancing:SetRulePriorities",
    ),
]


def _accepts(entry: Accepted, document: IamDocument, issue: str, detail: object) -> bool:
    if entry.issue != issue:
        return False
    if entry.where != ("trust" if document.trust else document.label):
        return False
    return entry.actions is None or (
        isinstance(detail, list) and frozenset(detail) == entry.actions
    )


def unexplained_findings(resources: Iterable[Registration]) -> list[str]:
    """parliament's findings on the render's IAM documents that no entry above accepts."""
    found = []
    for document in iam_documents(resources):
        analyzed = analyze_policy_string(json.dumps(document.document))
        for finding in analyzed.findings:
            if not any(_accepts(e, document, finding.issue, finding.detail) for e in ACCEPTED):
                found.append(f"{document.label}: {finding.issue} {finding.detail}")
    return found
