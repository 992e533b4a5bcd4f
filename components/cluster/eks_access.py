"""Who may administer the EKS cluster: access entries for admin and CI roles."""

from collections.abc import Sequence

CLUSTER_ADMIN_POLICY = "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
# HyperPod rejects CONFIG_MAP; API_AND_CONFIG_MAP keeps aws-auth working beside access entries.
AUTHENTICATION_MODE = "API_AND_CONFIG_MAP"
CONTROL_PLANE_LOGS = ["api", "audit", "authenticator", "controllerManager", "scheduler"]


def access_entries(admin_role_arns: Sequence[str], ci_role_arns: Sequence[str]) -> dict:
    """pulumi-eks `access_entries`: each role a cluster admin (CI runs `pulumi up`)."""
    roles = [("admin", arn) for arn in admin_role_arns] + [("ci", arn) for arn in ci_role_arns]
    return {
        f"{kind}-{i}": {
            "principal_arn": arn,
            "access_policies": {
                "cluster-admin": {
                    "policy_arn": CLUSTER_ADMIN_POLICY,
                    "access_scope": {"type": "cluster"},
                }
            },
        }
        for i, (kind, arn) in enumerate(roles)
    }
