"""Reading InferenceEndpointConfigs out of a file as the API server would take them."""

import yaml

from tests.tools.import_endpoint.test_import_command import DPD
from tools.import_endpoint.manifests import Manifest, Refusal, read_manifests


def read(tmp_path, text: str) -> list:
    path = tmp_path / "live.yaml"
    path.write_text(text)
    return read_manifests(path)


def test_what_the_api_server_wrote_is_set_aside(tmp_path):
    live = yaml.safe_load(DPD)
    live["metadata"] |= {"uid": "u", "resourceVersion": "7", "managedFields": [{}]}
    live["metadata"]["annotations"] = {
        "kubectl.kubernetes.io/last-applied-configuration": "{}",
        "team": "a",
    }
    live["status"] = {"state": "DeploymentComplete"}
    (manifest,) = read(tmp_path, yaml.safe_dump(live))
    assert isinstance(manifest, Manifest)
    assert "status" not in manifest.body
    assert manifest.body["metadata"] == {
        "name": "dpd-test",
        "namespace": "default",
        "annotations": {"team": "a"},
    }


def test_a_list_gives_each_item_with_its_place(tmp_path):
    item = yaml.safe_load(DPD)
    found = read(tmp_path, yaml.safe_dump({"kind": "List", "items": [item, {"kind": "Pod"}]}))
    assert isinstance(found[0], Manifest)
    assert isinstance(found[1], Refusal)
    assert (
        found[1].line()
        == f"{tmp_path}/live.yaml, items[1]: kind: 'Pod' is not an InferenceEndpointConfig"
    )


def test_the_newest_crds_refusal_names_the_field(tmp_path):
    text = DPD.replace("    modelLocation: Llama", "    s3Storage2: {}\n    modelLocation: Llama")
    (refusal,) = read(tmp_path, text)
    assert refusal.field == "spec.modelSourceConfig"
    assert refusal.problem.startswith(
        "the operator's CRD (3.2 and 3.3) refuses it: not in the operator's schema"
    )


def test_a_field_only_the_newer_crd_has_passes(tmp_path):
    # loadBalancer.idleTimeoutSeconds arrived with operator 3.3's CRD; 3.2's refuses it.
    manifest = yaml.safe_load(DPD)
    manifest["spec"]["loadBalancer"]["idleTimeoutSeconds"] = 120
    (found,) = read(tmp_path, yaml.safe_dump(manifest))
    assert isinstance(found, Manifest)


def test_documents_are_numbered_and_empty_ones_skipped(tmp_path):
    found = read(tmp_path, f"---\n{DPD}---\n---\nkind: Secret\n")
    assert isinstance(found[0], Manifest)
    assert found[0].where == f"{tmp_path}/live.yaml, document 1"
    assert found[1].where == f"{tmp_path}/live.yaml, document 3"
