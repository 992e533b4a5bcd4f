"""Template placeholders: refused on what the stack creates, kept on what it adopts; and values
pasted with a word processor's curly quotes, refused wherever they are."""

import pytest

from components.core.placeholders import check_curly_quotes, check_placeholders, holds_placeholder


def test_the_samples_placeholders_are_recognised_and_real_names_are_not():
    for value in ("<YOUR_MODEL_BUCKET>", "<my-region>", "<File-System-Id>", "s3://<TLS_BUCKET>"):
        assert holds_placeholder(value), value
    for value in ("team-weights", "us-west-2", "fs-0123456789abcdef0", "a <b> c"):
        assert not holds_placeholder(value), value


def test_a_placeholder_is_refused_naming_its_key():
    settings = {"endpoints": [{"modelSource": {"s3": {"bucket": "<YOUR_BUCKET>"}}}]}
    (finding,) = check_placeholders(settings)
    assert (finding.level, finding.field) == ("error", "endpoints[0].modelSource.s3.bucket")
    assert "'<YOUR_BUCKET>' is a template placeholder" in finding.message


def test_an_adopted_endpoint_keeps_its_placeholders_with_a_warning():
    adopted = {"adopted": True, "modelSource": {"fsx": {"fileSystemId": "<File-System-Id>"}}}
    created = {"modelSource": {"s3": {"region": "<my-region>"}}}
    found = check_placeholders({"endpoints": [adopted, created], "buckets": {"tls": "<TLS>"}})
    assert [(f.level, f.field) for f in found] == [
        ("warning", "endpoints[0].modelSource.fsx.fileSystemId"),
        ("error", "endpoints[1].modelSource.s3.region"),
        ("error", "buckets.tls"),
    ]


def test_free_text_may_hold_angle_brackets():
    endpoint = {"environmentVariables": {"NOTE": "<YOUR_NOTE>"}, "workerArgs": ["<TEMPLATE>"]}
    assert check_placeholders({"endpoints": [endpoint]}) == []


def test_an_adopted_switch_written_as_text_keeps_placeholders_a_warning():
    adopted = {"adopted": "true", "modelSource": {"s3": {"bucket": "<YOUR_BUCKET>"}}}
    (finding,) = check_placeholders({"endpoints": [adopted]})
    assert finding.level == "warning"


@pytest.mark.parametrize(
    "value", ["\u201c1.35\u201d", "\u2018ml\u2019", " \u201c/tmp/hf\u201d ", "\u201eLlama\u201c"]
)
def test_a_value_in_curly_quotes_is_refused_naming_its_key(value):
    settings = {"cluster": {"kubernetesVersion": "1.35"}, "endpoints": [{"tags": {"team": value}}]}
    (finding,) = check_curly_quotes(settings)
    assert (finding.level, finding.field) == ("error", "endpoints[0].tags.team")


@pytest.mark.parametrize("value", ["it\u2019s", "say \u201chi\u201d now", "\u201c", "plain"])
def test_curly_quotes_inside_a_value_are_its_own(value):
    assert check_curly_quotes({"endpoints": [{"environmentVariables": {"NOTE": value}}]}) == []
