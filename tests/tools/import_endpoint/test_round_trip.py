"""How a rendered object is held to the manifest it came from."""

from components.endpoint.overrides import DPD_FIELDS
from tools.import_endpoint.round_trip import addition_reason, compare


def manifest(**spec) -> dict:
    return {"metadata": {"name": "chat", "namespace": "team"}, "spec": spec}


def rendered(**spec) -> dict:
    return {"metadata": {"name": "chat", "namespace": "team"}, "spec": spec}


def test_a_quantity_compares_by_its_text_and_anything_else_by_value():
    gpus = {"requests": {"nvidia.com/gpu": 1}}
    assert (
        compare(
            manifest(worker={"resources": gpus}),
            rendered(worker={"resources": {"requests": {"nvidia.com/gpu": "1"}}}),
        ).changed
        == []
    )
    (changed,) = compare(manifest(replicas=1), rendered(replicas="1")).changed
    assert changed[0] == "spec.replicas"


def test_named_entries_compare_by_name_whatever_their_order():
    env = [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
    result = compare(
        manifest(worker={"environmentVariables": env}),
        rendered(worker={"environmentVariables": [env[1], {"name": "C", "value": "3"}, env[0]]}),
    )
    assert result.changed == []
    assert result.added == ["spec.worker.environmentVariables[name=C]"]


def test_a_command_line_compares_flag_by_flag():
    original = ["--max-model-len", "8192", "--enforce-eager"]
    same = compare(
        manifest(worker={"args": original}),
        rendered(worker={"args": ["--enforce-eager", "--port", "8000", "--max-model-len", "8192"]}),
    )
    assert (same.changed, same.added) == ([], ["spec.worker.args --port"])
    (changed,) = compare(
        manifest(worker={"args": original}), rendered(worker={"args": ["--max-model-len", "4096"]})
    ).changed[:1]
    assert changed == (
        "spec.worker.args --max-model-len",
        "the stack writes '--max-model-len 4096' for '--max-model-len 8192'",
    )


def test_a_dropped_field_and_another_name_are_changes():
    result = compare(
        manifest(tags=[{"name": "a", "value": "b"}], modelName="m"),
        {"metadata": {"name": "chat-g0a1b2", "namespace": "team"}, "spec": {"modelName": "m"}},
    )
    assert [path for path, _ in result.changed] == ["metadata.name", "spec.tags"]


def test_a_pd_spec_or_intelligent_routing_the_manifest_lacks_is_a_change_not_an_addition():
    result = compare(
        manifest(modelName="m"),
        rendered(modelName="m", pdSpec={}, intelligentRoutingSpec={"enabled": True}),
    )
    assert [path for path, _ in result.changed] == ["spec.pdSpec", "spec.intelligentRoutingSpec"]
    assert result.added == []


def test_each_addition_says_which_setting_writes_it():
    assert (
        addition_reason("spec.pdSpec.routingThreshold", DPD_FIELDS)
        == "the setting routingThreshold writes it"
    )
    assert (
        addition_reason("spec.worker.args --max-model-len", DPD_FIELDS)
        == "the setting maxModelLen writes it"
    )
    assert addition_reason("spec.worker.modelVolumeMount.mountPath", DPD_FIELDS).startswith(
        "fixed, because the model server reads the weights at /opt/ml/model"
    )
    assert (
        addition_reason("metadata.labels.hyperpod-dpd/endpoint", DPD_FIELDS)
        == "the label that finds the endpoint's object"
    )
