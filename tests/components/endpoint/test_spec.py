"""An endpoint's settings refused in words, naming the key."""

import pytest

from components.endpoint.roles import TopologySpec
from components.endpoint.spec import TlsConfig, check_tls_output
from tests.components.endpoint.items import endpoint_item, endpoint_problem, endpoint_problems

REFUSED = [
    (
        {"healthCheckPath": "/he alth"},
        "healthCheckPath",
        "without spaces",
    ),
    *[
        (
            {"invocationEndpoint": path},
            "invocationEndpoint",
            "the path the operator appends to http://<host>:<port>/",
        )
        for path in ("", "v1 chat/completions", "https://llm.example.com/v1/completions")
    ],
]


@pytest.mark.parametrize("changes, key, says", REFUSED)
def test_a_path_the_load_balancer_or_operator_would_refuse_is_refused(changes, key, says):
    assert says in endpoint_problem(changes, key)


REFUSED_IN_WORDS = {
    "an endpoint name Kubernetes refuses, in words rather than a regex": (
        {"name": "Dpd_Test"},
        "name: 'Dpd_Test' is not allowed; must be a Kubernetes name: at most 63 lowercase "
        "letters, digits or '-', starting and ending with a letter or digit",
    ),
    "a negative PD buffer": (
        {"pdBufferSize": -1},
        "pdBufferSize: -1 is not allowed; must be a size such as 8GiB",
    ),
    "a model name the operator refuses": (
        {"modelName": "-llama"},
        "modelName: '-llama' is not allowed; must be at most 63 letters, digits, '.', '_' "
        "or '-', starting and ending with a letter or digit, such as Llama-3.3-70B-Instruct",
    ),
    "a metrics path without its slash": (
        {"metrics": {"modelMetrics": {"path": "metrics"}}},
        "metrics.modelMetrics.path: 'metrics' is not allowed; must be a URL path of "
        "letters, digits, '-', '_', '.' or '/', starting with '/', such as /metrics",
    ),
    "a certificate ID where its ARN goes": (
        {
            "tlsConfig": {
                "customCertificateConfig": {
                    "acmArn": "certificate/0123abcd",
                    "domainName": "inference.example.com",
                }
            }
        },
        "tlsConfig.customCertificateConfig.acmArn: 'certificate/0123abcd' is not allowed; "
        "must be an ACM certificate ARN such as "
        "arn:aws:acm:us-west-2:123456789012:certificate/0123abcd-4567-89ef-0123-456789abcdef",
    ),
    "a worker resource that is not a quantity, refused on its setting rather than the CRD": (
        {"workerResources": {"cpu": "96", "memory": "16 GB"}},
        "workerResources.requests.memory: '16 GB' is not allowed; must be a Kubernetes "
        "quantity such as 500m, 4 or 16Gi",
    ),
}


@pytest.mark.parametrize("case", REFUSED_IN_WORDS)
def test_a_refusal_says_what_is_wrong(case):
    changes, line = REFUSED_IN_WORDS[case]
    assert endpoint_problems(endpoint_item(changes)) == [line]


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
    assert (
        "is not allowed; must be at most 63 letters, digits, '.', '_' or '-'"
        in endpoint_problem({"modelName": MODEL_NAME_REFUSED[case]}, "modelName")
    )


def test_a_hugging_face_id_as_model_name_says_where_the_id_goes():
    said = endpoint_problem({"modelName": "meta-llama/Llama-3.3-70B-Instruct"}, "modelName")
    assert (
        "must be the model's name alone, such as Llama-3.3-70B-Instruct, not a Hugging Face "
        in (said)
    )
    assert "the id goes in modelSource.huggingFace.modelId" in said


VALID = [
    {"healthCheckPath": "/v1/models?format=json&x=%20"},
    # Names as AWS's guides and Hugging Face spell them: dots, underscores, capitals, digits.
    {
        "modelName": "Qwen2.5-VL-7B-Instruct",
        "architecture": "llama-3.3-70b",
    },
    {
        "modelName": "Meta_Llama-3.1-8B.v2",
        "architecture": "llama-3.3-70b",
    },
    {"modelName": "7", "architecture": "llama-3.3-70b"},
    {"modelName": "a" * 63, "architecture": "llama-3.3-70b"},
    {"invocationEndpoint": "/v1/chat/completions?stream=false"},
]


@pytest.mark.parametrize("case", VALID)
def test_unusual_but_valid_paths_pass(case):
    assert endpoint_problems(endpoint_item(case)) == []


def test_a_certificate_bucket_the_operators_policy_cannot_write_is_warned_about():
    assert check_tls_output(TlsConfig(tls_certificate_output_s3_uri="s3://hyperpod-tls-a/c")) == []
    (finding,) = check_tls_output(TlsConfig(tls_certificate_output_s3_uri="s3://team-certs/c"))
    assert (finding.level, finding.field) == ("warning", "tlsConfig.tlsCertificateOutputS3Uri")
    assert "'team-certs' is not a hyperpod-tls* bucket" in finding.message


def test_a_tls_config_that_sets_nothing_is_refused_unless_adopted_as_it_is():
    assert "sets nothing; remove tlsConfig" in endpoint_problem({"tlsConfig": {}}, "tlsConfig")
    assert "tlsConfig" not in str(
        endpoint_problems(endpoint_item({"tlsConfig": {}, "adopted": True}))
    )


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
