from tests.support import dev_config, stack_problems


def test_a_prometheus_workspace_id_where_its_arn_goes_is_refused_in_words():
    config = dev_config()
    config["hyperpod-dpd:observability"] = {"enabled": True, "prometheusWorkspaceArn": "ws-1"}
    assert stack_problems(config) == [
        "hyperpod-dpd:observability.prometheusWorkspaceArn: 'ws-1' is not allowed; must be an "
        "Amazon Managed Prometheus workspace ARN such as "
        "arn:aws:aps:us-west-2:123456789012:workspace/ws-0123abcd-4567-89ef-0123-456789abcdef"
    ]
