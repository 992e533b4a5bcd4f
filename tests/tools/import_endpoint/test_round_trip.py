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


def test_a_list_compares_in_its_order_and_spelling_as_the_pods_receive_it():
    env = [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]
    (changed,) = compare(
        manifest(worker={"environmentVariables": env}),
        rendered(worker={"environmentVariables": env[::-1]}),
    ).changed
    assert changed[0] == "spec.worker.environmentVariables"
    args = ["/opt/ml/model", "--tensor_parallel_size", "4"]
    assert compare(manifest(worker={"args": args}), rendered(worker={"args": args})).changed == []
    for written in (["--tensor-parallel-size", "4", "/opt/ml/model"], [*args, "--port", "8000"]):
        result = compare(manifest(worker={"args": args}), rendered(worker={"args": written}))
        assert [path for path, _ in result.changed] == ["spec.worker.args"]


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
    assert addition_reason("spec.worker.modelVolumeMount.mountPath", DPD_FIELDS).startswith(
        "fixed, because the model server reads the weights at /opt/ml/model"
    )
    assert (
        addition_reason("metadata.labels.hyperpod-dpd/endpoint", DPD_FIELDS)
        == "the label that finds the endpoint's object"
    )
