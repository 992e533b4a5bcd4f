"""Where the Job reads the tokenizer `vllm bench serve` draws its random prompts from (without
one it writes no latency figures: serve.py, `if ... tokenizer:`): where the weights are,
without a copy. The S3 prefix through the Mountpoint S3 CSI driver the stack installs (which
fetches only the files opened), an FSx file system through the FSx CSI driver (each a read-only
PersistentVolume and claim), or a Hugging Face repository by name with the endpoint's token."""

from components.endpoint.manifest import (
    HF_TOKEN_KEY,
    hf_token_secret_name,
)
from components.endpoint.spec import EndpointSpec
from tools.bench.endpoint import BenchError, labels

# A user ID of the restricted range (checkov CKV_K8S_40: 10000 or more), not root.
USER_ID = 10001
WEIGHTS = "/mnt/weights"

HF_TOKEN_FILE = "/var/run/secrets/huggingface/token"


def weights_volume_name(spec: EndpointSpec) -> str:
    # PersistentVolumes are cluster-wide: the namespace keeps two endpoints' apart.
    return f"{spec.name}-{spec.namespace}-bench-weights"


def weights_objects(spec: EndpointSpec, index: int, model_bucket: str, region: str):
    """The PersistentVolume and claim the tokenizer is read through, the path it is at, and
    the volume's mount; ([], tokenizer name, None) for Hugging Face."""
    source = spec.model_source
    name = weights_volume_name(spec)
    key = f"endpoints[{index}].modelSource"
    if source.hugging_face is not None:
        return [], source.hugging_face.model_id, None
    if source.s3 is not None:
        # The Mountpoint S3 CSI driver's static provisioning (awslabs/mountpoint-s3-csi-driver,
        # examples/kubernetes/static_provisioning: static_provisioning.yaml, non_root.yaml);
        # ReadOnlyMany mounts it read-only. Its files belong to the Job's user.
        csi = {
            "driver": "s3.csi.aws.com",
            "volumeHandle": name,
            "volumeAttributes": {"bucketName": source.s3.bucket or model_bucket},
        }
        prefix = [f"prefix {source.s3.folder}"] if source.s3.folder else []
        options = [
            f"region {source.s3.region or region}",
            *prefix,
            f"uid={USER_ID}",
            f"gid={USER_ID}",
            "allow-other",
        ]
        path = WEIGHTS
    elif source.kubernetes_volume is not None:
        raise BenchError(
            f"{key}.kubernetesVolume: the benchmark reads the tokenizer through a volume of its "
            "own, and a volume of the endpoint's pods is not one it can mount; benchmark an "
            "endpoint whose weights are in S3, FSx or on Hugging Face"
        )
    else:
        fsx = source.fsx
        assert fsx is not None  # ModelSource guarantees exactly one source
        if not fsx.dns_name or not fsx.mount_name:
            raise BenchError(
                f"{key}.fsx: the benchmark mounts the file system to read the tokenizer, and "
                "needs its dnsName and mountName (`aws fsx describe-file-systems` shows both)"
            )
        # The FSx for Lustre CSI driver's static provisioning: the file system ID as the
        # volume handle, its DNS and mount names as attributes.
        csi = {
            "driver": "fsx.csi.aws.com",
            "volumeHandle": fsx.file_system_id,
            "volumeAttributes": {"dnsname": fsx.dns_name, "mountname": fsx.mount_name},
        }
        options = ["flock"]
        path = f"{WEIGHTS}/{fsx.path.strip('/')}" if fsx.path else WEIGHTS
    claim = {"namespace": spec.namespace, "name": name}
    volume = {
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {"name": name, "labels": labels(spec)},
        "spec": {
            # Required by the API, ignored by both drivers.
            "capacity": {"storage": "1Gi"},
            "accessModes": ["ReadOnlyMany"],
            "storageClassName": "",
            "claimRef": claim,
            "mountOptions": options,
            "csi": csi,
        },
    }
    persistent_claim = {
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {**claim, "labels": labels(spec)},
        "spec": {
            "accessModes": ["ReadOnlyMany"],
            "storageClassName": "",
            "resources": {"requests": {"storage": "1Gi"}},
            "volumeName": name,
        },
    }
    mount = {"name": "weights", "mountPath": WEIGHTS, "readOnly": True}
    return [volume, persistent_claim], path, mount


def hf_token_secret(spec: EndpointSpec) -> tuple[str, str] | None:
    hf = spec.model_source.hugging_face
    if hf is None:
        return None
    if hf.token_secret_ref is not None:
        return hf.token_secret_ref.name, hf.token_secret_ref.key
    if hf.token_config_key:
        return hf_token_secret_name(spec.name), HF_TOKEN_KEY
    return None
