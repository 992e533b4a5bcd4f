"""A kubeconfig for an EKS cluster, authenticating with `aws eks get-token` as kubectl does."""

from components.core.aws_account import AwsAccount


def eks_kubeconfig(*, cluster_name: str, endpoint: str, ca_data: str, region: str) -> dict:
    user = {
        "exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1",
            "command": "aws",
            "args": ["eks", "get-token", "--cluster-name", cluster_name, "--region", region],
        }
    }
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {
                "name": cluster_name,
                "cluster": {"server": endpoint, "certificate-authority-data": ca_data},
            }
        ],
        "users": [{"name": cluster_name, "user": user}],
        "contexts": [
            {"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}
        ],
        "current-context": cluster_name,
    }


def oidc_provider_arn(account: AwsAccount, issuer: str) -> str:
    resource = f"oidc-provider/{issuer.removeprefix('https://')}"
    return account.arn("iam", resource, regional=False)
