"""An endpoint's settings refused in words, naming the full key (issue 21, sections 3 and 6)."""

import pytest

from components.endpoint.roles import TopologySpec
from components.endpoint.spec import TlsConfig, check_tls_output
from tests.stack_changes import EP, cli_refusal, endpoint, refusal, renders_each

REFUSED = [
    (
        {"endpoints[0].healthCheckPath": "/he alth"},
        "endpoints[0].healthCheckPath",
        "without spaces",
    ),
    *[
        (
            {"endpoints[0].invocationEndpoint": path},
            "endpoints[0].invocationEndpoint",
            "the path the operator appends to http://<host>:<port>/",
        )
        for path in ("", "v1 chat/completions", "https://llm.example.com/v1/completions")
    ],
]


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_a_path_the_load_balancer_or_operator_would_refuse_is_refused(changes, key, says):
    assert says in refusal(changes, key)


CLI_REFUSED = {
    "an endpoint name Kubernetes refuses, in words rather than a regex": (
        endpoint(name="Dpd_Test"),
        f"{EP}.name: 'Dpd_Test' is not allowed; must be a Kubernetes name: at most 63 lowercase "
        "letters, digits or '-', starting and ending with a letter or digit",
    ),
    "a negative PD buffer": (
        endpoint(pdBufferSize=-1),
        f"{EP}.pdBufferSize: -1 is not allowed; must be a size such as 8GiB",
    ),
    "a model name the operator refuses": (
        endpoint(modelName="-llama"),
        f"{EP}.modelName: '-llama' is not allowed; must be at most 63 letters, digits, '.', '_' "
        "or '-', starting and ending with a letter or digit, such as Llama-3.3-70B-Instruct",
    ),
    "a metrics path without its slash": (
        endpoint(metrics={"modelMetrics": {"path": "metrics"}}),
        f"{EP}.metrics.modelMetrics.path: 'metrics' is not allowed; must be a URL path of "
        "letters, digits, '-', '_', '.' or '/', starting with '/', such as /metrics",
    ),
    "a certificate ID where its ARN goes": (
        endpoint(
            tlsConfig={
                "customCertificateConfig": {
                    "acmArn": "certificate/0123abcd",
                    "domainName": "inference.example.com",
                }
            }
        ),
        f"{EP}.tlsConfig.customCertificateConfig.acmArn: 'certificate/0123abcd' is not allowed; "
        "must be an ACM certificate ARN such as "
        "arn:aws:acm:us-west-2:123456789012:certificate/0123abcd-4567-89ef-0123-456789abcdef",
    ),
    "a worker resource that is not a quantity, refused on its setting rather than the CRD": (
        endpoint(workerResources={"cpu": "96", "memory": "16 GB"}),
        f"{EP}.workerResources.requests.memory: '16 GB' is not allowed; must be a Kubernetes "
        "quantity such as 500m, 4 or 16Gi",
    ),
}


@pytest.mark.parametrize("case", CLI_REFUSED)
def test_a_refusal_says_what_is_wrong(tmp_path, capsys, case):
    change, line = CLI_REFUSED[case]
    assert cli_refusal(tmp_path, capsys, change) == [line]


MODEL_NAME_REFUSED = {
    "a command after the name": "Llama-3.3-70B; touch PWNED",
    "a substitution": "Llama$(touch PWNED)",
    "backticks": "Llama`id`",
    "a newline out of the gated comment": "Llama-3.3-70B\n# ok",
    "an escape sequence": "Llama\x1b[2K",
    "a space": "Llama 3.3",
    "ending in a dot": "Llama-3.3.",
    "ending in a dash": "llama-",
    "a BiDi override": "Llama\u202e",
    "64 characters": "L" * 64,
}


@pytest.mark.parametrize("case", MODEL_NAME_REFUSED)
def test_a_model_name_that_is_not_a_name_is_refused(case):
    assert "is not allowed; must be at most 63 letters, digits, '.', '_' or '-'" in refusal(
        {"endpoints[0].modelName": MODEL_NAME_REFUSED[case]}, "endpoints[0].modelName"
    )


def test_a_hugging_face_id_as_model_name_says_where_the_id_goes():
    said = refusal(
        {"endpoints[0].modelName": "meta-llama/Llama-3.3-70B-Instruct"}, "endpoints[0].modelName"
    )
    assert (
        "must be the model's name alone, such as Llama-3.3-70B-Instruct, not a Hugging Face "
        in (said)
    )
    assert "the id goes in modelSource.huggingFace.modelId" in said


VALID = [
    {"endpoints[0].healthCheckPath": "/v1/models?format=json&x=%20"},
    # Names as AWS's guides and Hugging Face spell them: dots, underscores, capitals, digits.
    {
        "endpoints[0].modelName": "Qwen2.5-VL-7B-Instruct",
        "endpoints[0].architecture": "llama-3.3-70b",
    },
    {
        "endpoints[0].modelName": "Meta_Llama-3.1-8B.v2",
        "endpoints[0].architecture": "llama-3.3-70b",
    },
    {"endpoints[0].modelName": "7", "endpoints[0].architecture": "llama-3.3-70b"},
    {"endpoints[0].modelName": "a" * 63, "endpoints[0].architecture": "llama-3.3-70b"},
    {"endpoints[0].invocationEndpoint": "/v1/chat/completions?stream=false"},
]


valid_rendered = renders_each(VALID)


@pytest.mark.parametrize("case", range(len(VALID)))
def test_unusual_but_valid_paths_pass(valid_rendered, case):
    assert valid_rendered[case], VALID[case]


def test_a_certificate_bucket_the_operators_policy_cannot_write_is_warned_about():
    assert check_tls_output(TlsConfig(tls_certificate_output_s3_uri="s3://hyperpod-tls-a/c")) == []
    (finding,) = check_tls_output(TlsConfig(tls_certificate_output_s3_uri="s3://team-certs/c"))
    assert (finding.level, finding.field) == ("warning", "tlsConfig.tlsCertificateOutputS3Uri")
    assert "'team-certs' is not a hyperpod-tls* bucket" in finding.message


def test_a_tls_config_that_sets_nothing_is_refused():
    with pytest.raises(ValueError, match="sets nothing; remove tlsConfig"):
        TlsConfig.model_validate({})


@pytest.mark.parametrize(
    ("group", "taken"),
    [("dpd-pg", True), ("a" * 255, True), ("a" * 256, False), ("pg\u00e9", False)],
)
def test_a_placement_group_is_an_ec2_name(group, taken):
    try:
        TopologySpec.model_validate({"placementGroup": group})
    except ValueError:
        assert not taken
    else:
        assert taken
