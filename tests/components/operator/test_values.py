from components.operator.values import addon_configuration

ROLE = "arn:aws:iam::123456789012:role/"


def values(**extra):
    return addon_configuration(
        execution_role_arn=ROLE + "SageMakerHyperPodInference-dpd",
        tls_bucket="hyperpod-tls-dpd",
        hyperpod_cluster_arn="arn:aws:sagemaker:us-west-2:123456789012:cluster/abc",
        load_balancer_role_arn=ROLE + "alb",
        keda_role_arn=ROLE + "keda",
        **extra,
    )


def test_the_add_on_keys_with_their_arns():
    assert values() == {
        "executionRoleArn": ROLE + "SageMakerHyperPodInference-dpd",
        "tlsCertificateS3Bucket": "hyperpod-tls-dpd",
        "hyperpodClusterArn": "arn:aws:sagemaker:us-west-2:123456789012:cluster/abc",
        "alb": {"enabled": True, "serviceAccount": {"create": True, "roleArn": ROLE + "alb"}},
        "keda": {
            "enabled": True,
            "auth": {"aws": {"irsa": {"enabled": True, "roleArn": ROLE + "keda"}}},
        },
    }


def test_the_gated_model_role_only_when_there_is_one():
    assert "jumpstartGatedModelDownloadRoleArn" not in values()
    assert values(gated_model_role_arn=ROLE + "gated")["jumpstartGatedModelDownloadRoleArn"] == (
        ROLE + "gated"
    )
