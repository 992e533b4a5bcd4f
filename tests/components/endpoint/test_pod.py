from components.endpoint.manifest import build_manifest
from components.endpoint.pod import PodCustomizations, check_pod
from tests.components.endpoint.items import endpoint_problem, endpoint_spec

KUBERNETES = {
    "serviceAccountName": "llm-reader",
    "initContainers": [{"name": "warm", "image": "busybox:1.36", "command": ["true"]}],
    "volumes": [{"name": "scratch", "emptyDir": {"medium": "Memory"}}],
}


def test_the_pod_customizations_are_written_as_the_crd_names_them():
    endpoint = endpoint_spec({"kubernetes": KUBERNETES})
    manifest = build_manifest(endpoint, model_bucket="b", region="us-west-2")
    assert manifest["spec"]["kubernetes"] == KUBERNETES


def test_a_credential_in_an_init_container_is_refused_naming_its_path():
    token = "hf_" + "abcdefghijklmnopq" * 2
    pod = PodCustomizations.model_validate(
        {
            "initContainers": [
                {"name": "x", "image": "busybox", "env": [{"name": "T", "value": token}]}
            ]
        }
    )
    (finding,) = check_pod(pod)
    assert finding.field == "kubernetes.initContainers[0].env[0].value"
    assert token not in finding.message


def test_a_volume_kubernetes_does_not_know_is_refused_naming_the_key():
    says = endpoint_problem(
        {"kubernetes": {"volumes": [{"name": "v", "hostpath": {"path": "/x"}}]}},
        "kubernetes.volumes",
    )
    assert "[0]: Additional properties are not allowed ('hostpath' was unexpected)" in says


def test_a_service_account_that_is_not_a_kubernetes_name_is_refused():
    says = endpoint_problem(
        {"kubernetes": {"serviceAccountName": "LLM_Reader"}}, "kubernetes.serviceAccountName"
    )
    assert "must be a Kubernetes name" in says
