"""Names Kubernetes accepts, by the API server's own rules."""

from decimal import Decimal

import pytest

from components.core.kubernetes_names import (
    env_var_name_problem,
    label_key_problem,
    label_value_problem,
    quantity_value,
    value_from_problem,
)


@pytest.mark.parametrize("name", ["HF_HOME", "_x", "-x", ".x", "a.b-c_D9"])
def test_environment_variable_names_kubernetes_accepts(name):
    assert env_var_name_problem(name) is None


@pytest.mark.parametrize("name", ["", "9LIVES", "HF HOME", "A=B", "Ä"])
def test_environment_variable_names_kubernetes_refuses(name):
    assert "not an environment variable name Kubernetes accepts" in env_var_name_problem(name)


@pytest.mark.parametrize(
    "key", ["team", "a" * 63, "example.com/team", "node.kubernetes.io/instance-type", "a_b.c-d"]
)
def test_label_keys_kubernetes_accepts(key):
    assert label_key_problem(key) is None


@pytest.mark.parametrize(
    "key",
    ["", "a" * 64, "-team", "team-", "has space", "Example.com/team", "a/b/c", "/team",
     f"{'a' * 254}/team", "example.com/"],
)  # fmt: skip
def test_label_keys_kubernetes_refuses(key):
    assert "is not a label key Kubernetes accepts" in label_key_problem(key)


@pytest.mark.parametrize("value", ["", "ml", "a" * 63, "ml.p5.48xlarge", "A_b-C"])
def test_label_values_kubernetes_accepts(value):
    assert label_value_problem(value) is None


@pytest.mark.parametrize("value", ["a" * 64, "-ml", "ml platform", "ml/p5"])
def test_label_values_kubernetes_refuses(value):
    assert "is not a label value Kubernetes accepts" in label_value_problem(value)


@pytest.mark.parametrize(
    "quantity, amount",
    [("500m", "0.5"), ("4", "4"), ("16Gi", str(16 * 2**30)), ("1e3", "1000"), ("2k", "2000")],
)
def test_a_quantity_stands_for_its_amount(quantity, amount):
    assert quantity_value(quantity) == Decimal(amount)


# A variable's valueFrom the API server takes, and what it refuses (each with the part named).
VALUE_FROM_TAKEN = [
    {"secretKeyRef": {"name": "hf-token", "key": "token"}},
    {"secretKeyRef": {"name": "hf.token", "key": "HF_TOKEN", "optional": True}},
    {"configMapKeyRef": {"name": "settings", "key": "log.level"}},
    {"fieldRef": {"fieldPath": "metadata.name"}},
    {"fieldRef": {"fieldPath": "status.podIPs"}},
    {"fieldRef": {"fieldPath": "metadata.labels['app.kubernetes.io/name']"}},
    {"resourceFieldRef": {"resource": "limits.memory", "divisor": "1Mi"}},
    {"secretKeyRef": None, "fieldRef": {"fieldPath": "spec.nodeName"}},
]
VALUE_FROM_REFUSED = {
    "no source": ({}, "sets no source"),
    "two sources": (
        {"secretKeyRef": {"name": "a", "key": "k"}, "fieldRef": {"fieldPath": "metadata.name"}},
        "sets secretKeyRef and fieldRef",
    ),
    "a Secret with no name": ({"secretKeyRef": {"key": "k"}}, "secretKeyRef.name: ''"),
    "a Secret named in capitals": (
        {"secretKeyRef": {"name": "HF", "key": "k"}},
        "secretKeyRef.name: 'HF' is not a name",
    ),
    "a ConfigMap named with a slash": (
        {"configMapKeyRef": {"name": "a/b", "key": "k"}},
        "configMapKeyRef.name: 'a/b' is not a name",
    ),
    "a key with a space": ({"secretKeyRef": {"name": "a", "key": "my key"}}, "secretKeyRef.key"),
    "a field the pod does not give": (
        {"fieldRef": {"fieldPath": "spec.containers"}},
        "fieldRef.fieldPath: 'spec.containers' is not a pod field",
    ),
    "a resource no container has": (
        {"resourceFieldRef": {"resource": "limits.nvidia.com/gpu"}},
        "resourceFieldRef.resource",
    ),
}


@pytest.mark.parametrize("source", VALUE_FROM_TAKEN)
def test_value_sources_kubernetes_takes(source):
    assert value_from_problem(source) is None


@pytest.mark.parametrize("case", VALUE_FROM_REFUSED)
def test_value_sources_kubernetes_refuses_name_the_part(case):
    source, said = VALUE_FROM_REFUSED[case]
    assert said in value_from_problem(source)
