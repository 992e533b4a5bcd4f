"""What diagnose reads (tools/diagnose/bundle.py): whole objects and logs only, a saved
bundle that diagnoses offline as the cluster did, a broken bundle refused in one line, objects
of another shape read without a crash. It finds the endpoint's object by the label every
generation carries, reads the newest while a replacement runs, and falls back to the plain
name for an endpoint deployed before generations (components/endpoint/generation.py)."""

import json
import re
import shutil
import subprocess

import pytest

from components.endpoint.manifest import ENDPOINT_LABEL
from tests.pasted import expected_calls, paste
from tests.tools.diagnose.cluster_objects import (
    ALLOCATION_WAIT,
    DECODE_POD,
    FAILED_RETRIEVAL,
    HEALTHY_RETRIEVAL,
    PREFILL_POD,
    ROUTER_POD,
    healthy_logs,
    healthy_objects,
    model_pod,
    pod_list,
    routing_log,
    write_cluster,
)
from tests.tools.diagnose.cluster_objects import iec as iec_object
from tests.tools.diagnose.diagnosing import DECODE_LOG, diagnose, served
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


def test_it_reads_only_whole_objects_and_logs(kubectl, capsys):
    served(kubectl)
    diagnose(capsys)
    commands = [json.loads(line) for line in (kubectl / "commands.log").read_text().splitlines()]
    assert {c[0] for c in commands} == {"get", "logs"}
    assert all(c[-2:] == ["-o", "json"] for c in commands if c[0] == "get")
    assert not any("jsonpath" in " ".join(c) for c in commands)
    logged = {(c[1], c[c.index("-c") + 1]) for c in commands if c[0] == "logs"}
    assert logged == {
        (PREFILL_POD, "prefill-dpd-test"),
        (DECODE_POD, "decode-dpd-test"),
        (ROUTER_POD, "router-container"),
    }


def test_a_saved_bundle_diagnoses_the_same_offline(kubectl, tmp_path, capsys):
    logs = healthy_logs()
    logs[DECODE_LOG] += ALLOCATION_WAIT
    served(kubectl, logs=logs)
    saved = tmp_path / "ticket"
    status, live, _ = diagnose(capsys, "--save", str(saved))
    assert status == 1 and f"diagnose --from {saved}" in live
    shutil.rmtree(kubectl)
    status, offline, _ = diagnose(capsys, "--from", str(saved))
    assert status == 1

    def body(out: str) -> list[str]:
        kept = out.split("\n\nSaved")[0].strip().splitlines()
        return [line for line in kept if not line.startswith("  read ")]

    assert body(offline) == body(live)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("pods.json", "[" * 50_000, "pods.json: not the JSON kubectl writes"),
        ("captured.json", "{}", "no captured.json with capturedAt"),
    ],
)
def test_a_broken_bundle_is_exit_2(tmp_path, capsys, name, text, message):
    folder = write_cluster(tmp_path / "bundle", healthy_objects(), healthy_logs())
    (folder / name).write_text(text)
    status, _, err = diagnose(capsys, "--from", str(folder))
    assert status == 2 and message in err and "Traceback" not in err


def test_objects_of_another_shape_are_no_crash(tmp_path, capsys):
    odd = {**healthy_objects(), "pods.json": {"items": [1, "x", {"metadata": []}]}}
    folder = write_cluster(tmp_path / "bundle", odd, {})
    status, out, _ = diagnose(capsys, "--from", str(folder))
    assert status == 1 and "[no-dpd-pods]" in out


ROUTER_LOG = f"{ROUTER_POD}.router-container.log"
NAIVE = "2026-12-05T14:00:00"  # a time without a zone, which no API server writes
WAITING = {"waiting": {"reason": "ContainerCreating", "message": ""}}


# A bundle as a hostile author or a forged log would write one: each diagnosed to a report
# (exit 0 or 1), never a traceback, and every command it advises pastes as it reads.
def _failed_iec(name: str) -> dict:
    document = iec_object(ready=False)
    document["metadata"]["name"] = name
    document["status"]["conditions"][0]["message"] = "prefill Deployment failed"
    return document


def _decode_log(text: str) -> dict:
    return {**healthy_logs(), DECODE_LOG: text}


def _pods(**changes) -> dict:
    return pod_list(
        model_pod("prefill", PREFILL_POD, "7c9d8f6b5d", **changes),
        model_pod("decode", DECODE_POD, "5f7b9c8d4f"),
    )


HOSTILE_BUNDLES = {
    "an object named to run a command": ({"iec.json": _failed_iec("x; touch PWNED #")}, None),
    "an object named as a flag": ({"iec.json": _failed_iec("--kubeconfig=/tmp/x")}, None),
    "a throughput of 1.2.3 GB/s": (
        {},
        _decode_log(HEALTHY_RETRIEVAL.replace("176.1686", "1.2.3")),
    ),
    "a count of 5,000 digits": (
        {},
        _decode_log(FAILED_RETRIEVAL.replace("Retrieved 0 out", f"Retrieved {'9' * 5000} out")),
    ),
    "a routing decision of 5,000 digits": (
        {},
        {**healthy_logs(), ROUTER_LOG: routing_log().replace("6750", "7" * 5000)},
    ),
    "a creation time without a zone": (
        {"pods.json": _pods(worker_ready=False, worker_state=WAITING, created=NAIVE)},
        None,
    ),
    "a start time without a zone": (
        {"pods.json": _pods(worker_ready=False, created=NAIVE)},
        None,
    ),
    "a time in the year 9999": ({"pods.json": _pods(created="9999-12-31T23:59:59Z")}, None),
    "numbers where text goes and text where numbers go": (
        {"pods.json": json.loads(
            json.dumps(_pods(restarts=3)).replace('"restartCount": 3', '"restartCount": "3"')
            .replace('"phase": "Running"', '"phase": 1e308')
        )},
        None,
    ),
    "escape sequences in a log": ({}, _decode_log(ALLOCATION_WAIT + "\x1b[2J\x1b]8;;x\x07\n")),
    "a log that is not UTF-8": ({}, _decode_log("Failed to allocate memory object \xe9\x00")),
}  # fmt: skip


@pytest.mark.parametrize("case", HOSTILE_BUNDLES)
def test_a_hostile_bundle_is_diagnosed_and_its_advice_pastes_as_it_reads(tmp_path, capsys, case):
    changes, logs = HOSTILE_BUNDLES[case]
    bundle = write_cluster(tmp_path / "bundle", {**healthy_objects(), **changes}, {})
    for name, text in (logs or healthy_logs()).items():
        (bundle / "logs" / name).write_bytes(text.encode("latin-1", "replace"))
    status, out, err = diagnose(capsys, "--from", str(bundle))
    assert status in (0, 1) and "Traceback" not in err, err
    assert "\x1b" not in out
    advised = re.findall(r"`((?:kubectl|aws) [^`]*)`", out)
    pasted = paste(advised, tmp_path)
    assert pasted.created == [] and pasted.calls == expected_calls(advised)
    # A name the bundle gives is never an option of the command.
    assert not any(word.startswith("--kube") for call in pasted.calls for word in call)
