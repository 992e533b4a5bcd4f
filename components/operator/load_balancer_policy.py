"""The AWS Load Balancer Controller's IAM policy, for the controller the operator bundles.

The HyperPod Inference Operator's Helm chart (aws/sagemaker-hyperpod-cli,
helm_chart/HyperPodHelmChart/charts/inference-operator/Chart.yaml) depends on the
aws-load-balancer-controller chart 1.13.2, whose Chart.yaml (kubernetes-sigs/aws-load-balancer-
controller, tag v2.13.2) ships controller v2.13.2. The statements below are that controller's
own policy, docs/install/iam_policy.json at tag v2.13.2, statement by statement, with the tag
conditions that confine its writes to what it created (`elbv2.k8s.aws/cluster`). Trimmed copies
fail at ALB creation with AccessDenied, so this follows upstream rather than our own guess.

To update after an operator add-on upgrade: read the new operator chart's dependency on
aws-load-balancer-controller, look up that chart's appVersion, diff docs/install/iam_policy.json
between CONTROLLER_VERSION and the new tag, carry the changes over here, and bump the constants.
"""

from __future__ import annotations

from components.core.iam_statement import Statement, policy_document

CHART_VERSION = "1.13.2"
CONTROLLER_VERSION = "v2.13.2"

CLUSTER_TAG = "elbv2.k8s.aws/cluster"
REQUEST_TAG = f"aws:RequestTag/{CLUSTER_TAG}"
RESOURCE_TAG = f"aws:ResourceTag/{CLUSTER_TAG}"
# The controller created the resource (it carries the cluster tag) ...
CREATED_BY_CONTROLLER = {"Null": {RESOURCE_TAG: "false"}}
# ... and the request does not try to move the cluster tag.
KEEPS_CLUSTER_TAG = {"Null": {REQUEST_TAG: "true", RESOURCE_TAG: "false"}}
# A create request must carry the cluster tag.
TAGS_NEW_RESOURCE = {"Null": {REQUEST_TAG: "false"}}

DESCRIBE = (
    "ec2:DescribeAccountAttributes",
    "ec2:DescribeAddresses",
    "ec2:DescribeAvailabilityZones",
    "ec2:DescribeInternetGateways",
    "ec2:DescribeVpcs",
    "ec2:DescribeVpcPeeringConnections",
    "ec2:DescribeSubnets",
    "ec2:DescribeSecurityGroups",
    "ec2:DescribeInstances",
    "ec2:DescribeNetworkInterfaces",
    "ec2:DescribeTags",
    "ec2:GetCoipPoolUsage",
    "ec2:DescribeCoipPools",
    "ec2:GetSecurityGroupsForVpc",
    "ec2:DescribeIpamPools",
    "ec2:DescribeRouteTables",
    "elasticloadbalancing:DescribeLoadBalancers",
    "elasticloadbalancing:DescribeLoadBalancerAttributes",
    "elasticloadbalancing:DescribeListeners",
    "elasticloadbalancing:DescribeListenerCertificates",
    "elasticloadbalancing:DescribeSSLPolicies",
    "elasticloadbalancing:DescribeRules",
    "elasticloadbalancing:DescribeTargetGroups",
    "elasticloadbalancing:DescribeTargetGroupAttributes",
    "elasticloadbalancing:DescribeTargetHealth",
    "elasticloadbalancing:DescribeTags",
    "elasticloadbalancing:DescribeTrustStores",
    "elasticloadbalancing:DescribeListenerAttributes",
    "elasticloadbalancing:DescribeCapacityReservation",
)
# Certificates, Cognito, WAF, WAFv2 and Shield, for what an Ingress's annotations ask for.
INTEGRATIONS = (
    "cognito-idp:DescribeUserPoolClient",
    "acm:ListCertificates",
    "acm:DescribeCertificate",
    "iam:ListServerCertificates",
    "iam:GetServerCertificate",
    "waf-regional:GetWebACL",
    "waf-regional:GetWebACLForResource",
    "waf-regional:AssociateWebACL",
    "waf-regional:DisassociateWebACL",
    "wafv2:GetWebACL",
    "wafv2:GetWebACLForResource",
    "wafv2:AssociateWebACL",
    "wafv2:DisassociateWebACL",
    "shield:GetSubscriptionState",
    "shield:DescribeProtection",
    "shield:CreateProtection",
    "shield:DeleteProtection",
)
MANAGE_OWN = (
    "elasticloadbalancing:ModifyLoadBalancerAttributes",
    "elasticloadbalancing:SetIpAddressType",
    "elasticloadbalancing:SetSecurityGroups",
    "elasticloadbalancing:SetSubnets",
    "elasticloadbalancing:DeleteLoadBalancer",
    "elasticloadbalancing:ModifyTargetGroup",
    "elasticloadbalancing:ModifyTargetGroupAttributes",
    "elasticloadbalancing:DeleteTargetGroup",
    "elasticloadbalancing:ModifyListenerAttributes",
    "elasticloadbalancing:ModifyCapacityReservation",
    "elasticloadbalancing:ModifyIpPools",
)
LISTENERS_AND_RULES = (
    "elasticloadbalancing:SetWebAcl",
    "elasticloadbalancing:ModifyListener",
    "elasticloadbalancing:AddListenerCertificates",
    "elasticloadbalancing:RemoveListenerCertificates",
    "elasticloadbalancing:ModifyRule",
    "elasticloadbalancing:SetRulePriorities",
)
SECURITY_GROUP_INGRESS = ("ec2:AuthorizeSecurityGroupIngress", "ec2:RevokeSecurityGroupIngress")
ADD_AND_REMOVE_TAGS = ("elasticloadbalancing:AddTags", "elasticloadbalancing:RemoveTags")


def load_balancer_controller_statements(partition: str = "aws") -> list[Statement]:
    def arn(service: str, resource: str) -> str:
        return f"arn:{partition}:{service}:*:*:{resource}"

    security_groups = arn("ec2", "security-group/*")
    balancers = [
        arn("elasticloadbalancing", "targetgroup/*/*"),
        arn("elasticloadbalancing", "loadbalancer/net/*/*"),
        arn("elasticloadbalancing", "loadbalancer/app/*/*"),
    ]
    listeners = [
        arn("elasticloadbalancing", f"{kind}/{lb}/*/*/*")
        for kind in ("listener", "listener-rule")
        for lb in ("net", "app")
    ]
    return [
        Statement(
            ["iam:CreateServiceLinkedRole"],
            conditions={
                "StringEquals": {"iam:AWSServiceName": "elasticloadbalancing.amazonaws.com"}
            },
        ),
        # Describe and list calls support no resource-level permissions.
        Statement(DESCRIBE),
        Statement(INTEGRATIONS),
        Statement(SECURITY_GROUP_INGRESS),
        Statement(["ec2:CreateSecurityGroup"]),
        Statement(
            ["ec2:CreateTags"],
            [security_groups],
            {"StringEquals": {"ec2:CreateAction": "CreateSecurityGroup"}, **TAGS_NEW_RESOURCE},
        ),
        Statement(["ec2:CreateTags", "ec2:DeleteTags"], [security_groups], KEEPS_CLUSTER_TAG),
        Statement(
            [*SECURITY_GROUP_INGRESS, "ec2:DeleteSecurityGroup"], ["*"], CREATED_BY_CONTROLLER
        ),
        Statement(
            ["elasticloadbalancing:CreateLoadBalancer", "elasticloadbalancing:CreateTargetGroup"],
            ["*"],
            TAGS_NEW_RESOURCE,
        ),
        Statement(
            [
                "elasticloadbalancing:CreateListener",
                "elasticloadbalancing:DeleteListener",
                "elasticloadbalancing:CreateRule",
                "elasticloadbalancing:DeleteRule",
            ]
        ),
        Statement(ADD_AND_REMOVE_TAGS, balancers, KEEPS_CLUSTER_TAG),
        Statement(ADD_AND_REMOVE_TAGS, listeners),
        Statement(MANAGE_OWN, ["*"], CREATED_BY_CONTROLLER),
        Statement(
            ["elasticloadbalancing:AddTags"],
            balancers,
            {
                "StringEquals": {
                    "elasticloadbalancing:CreateAction": ["CreateTargetGroup", "CreateLoadBalancer"]
                },
                **TAGS_NEW_RESOURCE,
            },
        ),
        Statement(
            ["elasticloadbalancing:RegisterTargets", "elasticloadbalancing:DeregisterTargets"],
            [arn("elasticloadbalancing", "targetgroup/*/*")],
        ),
        Statement(LISTENERS_AND_RULES),
    ]


def load_balancer_controller_policy(partition: str = "aws") -> dict:
    return policy_document(load_balancer_controller_statements(partition))
