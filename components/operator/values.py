"""The configuration values of the `amazon-sagemaker-hyperpod-inference` EKS add-on."""


def addon_configuration(
    *,
    execution_role_arn: str,
    tls_bucket: str,
    hyperpod_cluster_arn: str,
    load_balancer_role_arn: str,
    keda_role_arn: str,
    gated_model_role_arn: str | None = None,
) -> dict:
    """The add-on's keys (not the Helm chart's: it spells KEDA's role `podIdentity`)."""
    values = {
        "executionRoleArn": execution_role_arn,
        # A bucket name, not an s3:// URI.
        "tlsCertificateS3Bucket": tls_bucket,
        "hyperpodClusterArn": hyperpod_cluster_arn,
        "alb": {
            "enabled": True,
            "serviceAccount": {"create": True, "roleArn": load_balancer_role_arn},
        },
        "keda": {
            "enabled": True,
            "auth": {"aws": {"irsa": {"enabled": True, "roleArn": keda_role_arn}}},
        },
    }
    if gated_model_role_arn is not None:
        values["jumpstartGatedModelDownloadRoleArn"] = gated_model_role_arn
    return values
