from components.observability.checks import check_observability
from components.observability.spec import ObservabilitySpec
from tests.support import dev_config, stack_problems


def test_a_prometheus_workspace_id_where_its_arn_goes_is_refused_in_words():
    config = dev_config()
    config["hyperpod-dpd:observability"] = {"enabled": True, "prometheusWorkspaceArn": "ws-1"}
    assert stack_problems(config) == [
        "hyperpod-dpd:observability.prometheusWorkspaceArn: 'ws-1' is not allowed; must be an "
        "Amazon Managed Prometheus workspace ARN such as "
        "arn:aws:aps:us-west-2:123456789012:workspace/ws-0123abcd-4567-89ef-0123-456789abcdef"
    ]


def test_grafana_while_observability_is_off_is_refused_not_ignored():
    spec = ObservabilitySpec.model_validate({"grafana": {"authenticationProviders": ["AWS_SSO"]}})
    (finding,) = check_observability(spec, "us-west-2")
    assert (finding.level, finding.field) == ("error", "observability.grafana")
    assert "observability.enabled is false" in finding.message
