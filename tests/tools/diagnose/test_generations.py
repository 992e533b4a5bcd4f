"""diagnose finds the endpoint's object by the label every generation carries, reads the newest
while a replacement runs, and falls back to the plain name for an endpoint deployed before
generations (components/endpoint/generation.py)."""

import json
import subprocess

import pytest

from components.endpoint.manifest import ENDPOINT_LABEL
from tools.diagnose.bundle import IEC, BundleError, ClusterReader, newest_generation
from tools.diagnose.cluster_view import object_name


def iec(name: str, created: str) -> dict:
    return {
        "kind": "InferenceEndpointConfig",
        "metadata": {
            "name": name,
            "namespace": "default",
            "creationTimestamp": created,
            "labels": {ENDPOINT_LABEL: "dpd-test"},
        },
    }


def listing(*items: dict) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": list(items)})


class Kubectl:
    """Answers the label query with `listed`, a get by name with `by_name`; records each."""

    def __init__(self, listed: str, by_name: str | None = None) -> None:
        self.listed, self.by_name, self.calls = listed, by_name, []

    def __call__(self, argv):
        self.calls.append(list(argv))
        args = argv[1:]
        if args[:2] == ["get", "inferenceendpointconfig"]:
            if "-l" in args:
                return subprocess.CompletedProcess(argv, 0, self.listed, "")
            if self.by_name is not None:
                return subprocess.CompletedProcess(argv, 0, self.by_name, "")
            error = 'Error from server (NotFound): "dpd-test" not found\n'
            return subprocess.CompletedProcess(argv, 1, "", error)
        return subprocess.CompletedProcess(argv, 0, listing(), "")


def test_the_newest_generation_is_read_while_both_run():
    old, new = (
        iec("dpd-test-g0a1b2", "2026-12-01T09:00:00Z"),
        iec("dpd-test-g3c4d5", "2026-12-01T10:00:00Z"),
    )
    kubectl = Kubectl(listing(new, old))
    bundle = ClusterReader(runner=kubectl).read("dpd-test", "default")
    assert object_name(bundle.json(IEC), "dpd-test") == "dpd-test-g3c4d5"
    assert kubectl.calls[0][1:] == [
        "get", "inferenceendpointconfig", "-n", "default",
        "-l", f"{ENDPOINT_LABEL}=dpd-test", "-o", "json",
    ]  # fmt: skip


def test_an_endpoint_deployed_before_generations_is_read_by_its_name():
    kubectl = Kubectl(listing(), by_name=json.dumps(iec("dpd-test", "2026-11-01T00:00:00Z")))
    bundle = ClusterReader(runner=kubectl).read("dpd-test", "default")
    assert object_name(bundle.json(IEC), "dpd-test") == "dpd-test"
    assert kubectl.calls[1][1:4] == ["get", "inferenceendpointconfig", "dpd-test"]


def test_no_endpoint_at_all_is_kubectls_not_found():
    with pytest.raises(BundleError, match="NotFound"):
        ClusterReader(runner=Kubectl(listing())).read("dpd-test", "default")


def test_one_object_rather_than_a_list_is_that_object():
    text = json.dumps(iec("dpd-test-g0a1b2", "2026-12-01T09:00:00Z"))
    assert newest_generation(text) == text


def test_an_answer_that_is_not_json_is_refused_in_one_line():
    with pytest.raises(BundleError, match="not the JSON kubectl writes"):
        newest_generation("<html>")
