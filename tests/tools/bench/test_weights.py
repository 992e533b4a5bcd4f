"""Where the bench Job reads the tokenizer (tools/bench/weights.py): the model's S3 prefix
mounted read-only, or a Hugging Face model by name with its token as a file."""

import kubernetes_validate

from tests.support import dev_endpoint, with_endpoints
from tests.tools.bench.bench_job import KUBERNETES_VERSION, bench, command, flag, job_of, objects


def test_the_tokenizer_is_read_from_the_model_prefix_read_only(dev_job):
    volume, claim, _, job = objects(dev_job)
    assert volume["spec"]["csi"]["volumeAttributes"] == {
        "bucketName": "hyperpod-dpd-dev-models-111122223333"
    }
    assert "prefix Llama-3.3-70B-Instruct/" in volume["spec"]["mountOptions"]
    assert volume["spec"]["accessModes"] == ["ReadOnlyMany"]
    pod = job["spec"]["template"]["spec"]
    (mount,) = [m for m in pod["containers"][0]["volumeMounts"] if m["name"] == "weights"]
    assert mount["readOnly"] and flag(command(job), "--tokenizer") == mount["mountPath"]
    assert pod["volumes"][1]["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]


def test_a_hugging_face_model_reads_its_tokenizer_by_name_with_the_token_as_a_file(
    tmp_path, capsys
):
    endpoint = dev_endpoint()
    endpoint["modelSource"] = {
        "huggingFace": {
            "modelId": "meta-llama/Llama-3.3-70B-Instruct",
            "tokenSecretRef": {"name": "hf", "key": "token"},
        }
    }
    status, out, err = bench(tmp_path, capsys, with_endpoints(endpoint), "--endpoint", "dpd-test")
    assert status == 0, err
    documents = objects(out)
    assert [d["kind"] for d in documents] == ["NetworkPolicy", "Job"]
    job = job_of(documents)
    assert flag(command(job), "--tokenizer") == "meta-llama/Llama-3.3-70B-Instruct"
    pod = job["spec"]["template"]["spec"]
    env = {e["name"]: e["value"] for e in pod["containers"][0]["env"]}
    assert env["HF_TOKEN_PATH"] == "/var/run/secrets/huggingface/token"
    assert {"name": "hf-token", "secret": {"secretName": "hf", "items": [
        {"key": "token", "path": "token"}]}} in pod["volumes"]  # fmt: skip
    for document in documents:
        kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)
