"""Stack settings a careless or hostile user writes (issue 21, sections 1, 5 and 6): each
refused with exit 2 and one line naming the key, no traceback, nothing written; unusual but
valid ones render.

File-level problems (encodings, YAML that JSON cannot hold, alias bombs, deep nesting) are in
tests/tools/render/test_unreadable_stack_files.py; --out in test_render_output.py."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pydantic import ByteSize, TypeAdapter

from components.model.hf_config import MAX_CONFIG_BYTES
from infra.stack_settings import StackSettings
from tests.support import config_file, dev_config, render
from tools.cli import main

EP = "hyperpod-dpd:endpoints[0]"
Change = Callable[[dict[str, Any], Path], None]


def endpoint(**changes: Any) -> Change:
    def change(config: dict[str, Any], _: Path) -> None:
        config["hyperpod-dpd:endpoints"][0].update(changes)

    return change


def env(name: str, value: str = "abc123") -> Change:
    def change(config: dict[str, Any], _: Path) -> None:
        config["hyperpod-dpd:endpoints"][0]["environmentVariables"][name] = value

    return change


def role(name: str, **changes: Any) -> Change:
    def change(config: dict[str, Any], _: Path) -> None:
        config["hyperpod-dpd:endpoints"][0][name].update(changes)

    return change


def gpu_group(**changes: Any) -> Change:
    def change(config: dict[str, Any], _: Path) -> None:
        config["hyperpod-dpd:cluster"]["instanceGroups"][0].update(changes)

    return change


def cluster(**changes: Any) -> Change:
    def change(config: dict[str, Any], _: Path) -> None:
        config["hyperpod-dpd:cluster"].update(changes)

    return change


def existing_network(**changes: Any) -> Change:
    """The dev stack in a VPC of its own, with `changes` to that VPC's IDs."""

    def change(config: dict[str, Any], _: Path) -> None:
        subnets = {"usw2-az2": "subnet-0123456789abcdef0", "usw2-az3": "subnet-0123456789abcdef1"}
        existing = {"vpcId": "vpc-0123456789abcdef0", "privateSubnetIds": subnets, **changes}
        config["hyperpod-dpd:network"] = {
            "availabilityZoneIds": ["usw2-az2", "usw2-az3"],
            "existing": existing,
        }

    return change


def setting(key: str, value: Any) -> Change:
    def change(config: dict[str, Any], _: Path) -> None:
        config[key] = value

    return change


def hugging_face(token_config_key: str, **extra: Any) -> Change:
    def change(config: dict[str, Any], _: Path) -> None:
        config["hyperpod-dpd:endpoints"][0]["modelSource"] = {
            "huggingFace": {
                "modelId": "meta-llama/Llama-3.3-70B-Instruct",
                "tokenConfigKey": token_config_key,
            }
        }
        config.update(extra)

    return change


def architecture_file(make: Callable[[Path], Path]) -> Change:
    def change(config: dict[str, Any], tmp: Path) -> None:
        config["hyperpod-dpd:endpoints"][0]["architecture"] = {
            "configFile": str(make(tmp)),
            "parameters": 70.6e9,
        }

    return change


def _fifo(tmp: Path) -> Path:
    os.mkfifo(tmp / "config.json")
    return tmp / "config.json"


def _huge(tmp: Path) -> Path:
    (tmp / "config.json").write_text(" " * (MAX_CONFIG_BYTES + 1))
    return tmp / "config.json"


def _refused(tmp_path: Path, capsys: pytest.CaptureFixture, change: Change) -> list[str]:
    """The lines `render` prints for the dev stack so changed, once it has exited 2 and
    written nothing."""
    config = dev_config()
    change(config, tmp_path)
    out = tmp_path / "out"
    assert main(["render", "--config-file", config_file(tmp_path, config), "--out", str(out)]) == 2
    assert not out.exists()
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return err.splitlines()


# Section 1: inputs that crashed, hung or filled memory.
CRASHES = {
    "an autoscaling query metric without its query": (
        role(
            "prefill",
            autoscaling={"minReplicas": 1, "maxReplicas": 1, "metric": "query", "target": 10},
        ),
        f"{EP}.prefill.autoscaling.query: is required exactly when metric is `query` (the named "
        "metrics waiting, running, concurrent write their own)",
    ),
    "a PromQL query long enough to overflow the parser's stack": (
        role(
            "prefill",
            autoscaling={
                "minReplicas": 1,
                "maxReplicas": 1,
                "metric": "query",
                "query": "sum(up) + " * 6000 + "1",
                "target": 10,
            },
        ),
        f"{EP}.prefill.autoscaling.query: {('sum(up) + ' * 8)[:77] + '...'!r} is not valid PromQL "
        "(60,001 characters, more than the 4,096 any autoscaling query needs), and KEDA would "
        "pass it to Prometheus as written",
    ),
    "configFile naming /dev/zero, which never ends": (
        architecture_file(lambda _: Path("/dev/zero")),
        f"{EP}.architecture.configFile: /dev/zero: is a character device, not a file",
    ),
    "configFile naming a FIFO, which blocks a read": (
        architecture_file(_fifo),
        f"{EP}.architecture.configFile: {{tmp}}/config.json: is a named pipe (FIFO), not a file",
    ),
    "configFile naming a directory": (
        architecture_file(lambda tmp: tmp),
        f"{EP}.architecture.configFile: {{tmp}}: is a directory, not a file",
    ),
    "configFile naming a file past its size cap": (
        architecture_file(_huge),
        f"{EP}.architecture.configFile: {{tmp}}/config.json: is larger than 4 MiB, more than "
        "such a file holds",
    ),
    "a whole number whose sizing would overflow a float": (
        endpoint(
            architecture={
                "layers": 2**100,
                "kvHeads": 8,
                "headDim": 128,
                "dtype": "bf16",
                "parameters": 70e9,
            }
        ),
        f"{EP}.architecture.layers: {float(2**100)} is not allowed; must be a number below 2^63",
    ),
    "a whole number beyond 64 bits, which Pulumi reads as a float": (
        endpoint(tensorParallelSize=2**70),
        f"{EP}.tensorParallelSize: {float(2**70)} is not allowed; must be a number below 2^63",
    ),
}

# Section 5: secrets in plain text, and token keys whose advice would overwrite a setting.
SECRETS = {
    **{
        f"{name} in environmentVariables": (
            env(name),
            f"{EP}.environmentVariables.{name}: is a Hugging Face token in plain text; set "
            "modelSource.huggingFace.tokenConfigKey (a key encrypted with `pulumi config set "
            "--secret`) or tokenSecretRef (a Kubernetes Secret) instead",
        )
        for name in ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")
    },
    **{
        f"{name} in environmentVariables": (
            env(name),
            f"{EP}.environmentVariables.{name}: is an AWS credential in plain text; the pods get "
            "AWS access from IAM roles (the S3 CSI driver's reads the weights), so remove it",
        )
        for name in ("AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_ACCESS_KEY_ID")
    },
    **{
        f"{name} in environmentVariables": (
            env(name),
            f"{EP}.environmentVariables.{name}: looks like a credential, which would sit in plain "
            "text in the stack file, the Pulumi state and the InferenceEndpointConfig; keep "
            "credentials in a Kubernetes Secret, not in environmentVariables",
        )
        for name in ("WANDB_API_KEY", "VLLM_API_KEY", "DB_PASSWORD")
    },
    **{
        f"tokenConfigKey {key}": (
            hugging_face(key),
            f"{EP}.modelSource.huggingFace.tokenConfigKey: {key!r} names a namespace, but the "
            "token is always read from this project's (hyperpod-dpd:<name>); give a name alone, "
            "e.g. hfToken, set with `pulumi config set --secret hfToken <token>`",
        )
        for key in ("aws:region", "hyperpod-dpd:hfToken")
    },
    "a Hugging Face token in vLLM's arguments": (
        endpoint(workerArgs=["--hf-token", "hf_abc"]),
        f"{EP}.workerArgs: --hf-token puts a Hugging Face token in plain text in the manifest; "
        "set modelSource.huggingFace.tokenConfigKey or tokenSecretRef instead",
    ),
    "vLLM's API key in a role's arguments": (
        role("decode", args=["--api_key=sk-abc"]),
        f"{EP}.decode.args: --api_key puts vLLM's API key in plain text in the stack file, the "
        "Pulumi state and the InferenceEndpointConfig; keep credentials out of the arguments",
    ),
    "tokenConfigKey naming a setting": (
        hugging_face("network"),
        f"{EP}.modelSource.huggingFace.tokenConfigKey: 'network' is one of this program's own "
        "settings (endpoints, network, cluster, buckets, operator, observability); name a key of "
        "its own for the token, e.g. hfToken",
    ),
    "tokenConfigKey naming a plain-text key": (
        hugging_face("hfToken", **{"hyperpod-dpd:hfToken": "hf_abc"}),
        f"{EP}.modelSource.huggingFace.tokenConfigKey: hyperpod-dpd:hfToken is plain text in the "
        "stack file, where anyone who reads the repository reads the token; encrypt it with "
        "`pulumi config set --secret hfToken <token>`",
    ),
    "a setting encrypted whole": (
        setting("hyperpod-dpd:endpoints", {"secure": "AAABAJfa"}),
        "hyperpod-dpd:endpoints: is encrypted (`secure:`), whole or in part; settings are plain "
        "text, and the one secret this program reads is a Hugging Face token under a key of its "
        "own, named by modelSource.huggingFace.tokenConfigKey",
    ),
    "a secret inside a setting": (
        env("NCCL_DEBUG", {"secure": "AAABAJfa"}),
        "hyperpod-dpd:endpoints: is encrypted (`secure:`), whole or in part; settings are plain "
        "text, and the one secret this program reads is a Hugging Face token under a key of its "
        "own, named by modelSource.huggingFace.tokenConfigKey",
    ),
}

# Section 6: refusals that once misled.
MESSAGES = {
    "a configured bucket name S3 refuses": (
        setting("hyperpod-dpd:buckets", {"model": {"name": "models..team"}}),
        "hyperpod-dpd:buckets.model.name: 'models..team' must not hold two adjacent periods or "
        "look like an IP address",
    ),
    "an instanceCount beyond HyperPod's": (
        gpu_group(instanceCount=100_000_000),
        "hyperpod-dpd:cluster.instanceGroups[0].instanceCount: 100000000 is not allowed; must be "
        "less than or equal to 6758",
    ),
    "a very long value, cut to keep one readable line": (
        endpoint(routingStrategy="x" * 5000),
        f"{EP}.routingStrategy: '{'x' * 79}... (5,000 characters) is not allowed; must be "
        "'prefixaware', 'kvaware', 'session' or 'roundrobin'",
    ),
    "text where a setting's mapping goes": (
        setting("hyperpod-dpd:network", "10.0.0.0/16"),
        "hyperpod-dpd:network: is text; this setting is a YAML mapping",
    ),
    "no endpoints at all": (
        setting("hyperpod-dpd:endpoints", []),
        "hyperpod-dpd:endpoints: must have at least 1 item, not 0",
    ),
    "a setting left empty, which the CLI passes as empty text": (
        setting("hyperpod-dpd:network", ""),
        "hyperpod-dpd:network: is required unless cluster.existing names a cluster",
    ),
    "a list where a mapping goes": (
        endpoint(prefill=[1]),
        f"{EP}.prefill: must be a mapping of settings (replicas, gpus, maxNumSeqs, "
        "gpuMemoryUtilization, args, nodeSelector, autoscaling)",
    ),
    "null for a list": (
        setting(
            "hyperpod-dpd:network",
            {**dev_config()["hyperpod-dpd:network"], "availabilityZoneIds": None},
        ),
        "hyperpod-dpd:network.availabilityZoneIds: null is not allowed; must be a list",
    ),
    "a VPC range that is not one": (
        setting("hyperpod-dpd:network", {**dev_config()["hyperpod-dpd:network"], "vpcCidr": "x"}),
        "hyperpod-dpd:network.vpcCidr: 'x' is not allowed; must be an IPv4 CIDR block such as "
        "10.0.0.0/16",
    ),
    "a VPC range written as a number": (
        setting("hyperpod-dpd:network", {**dev_config()["hyperpod-dpd:network"], "vpcCidr": 5}),
        "hyperpod-dpd:network.vpcCidr: 5 is not allowed; must be an IPv4 CIDR block such as "
        "10.0.0.0/16",
    ),
    "an unquoted Kubernetes version, which YAML reads as a number": (
        setting(
            "hyperpod-dpd:cluster",
            {**dev_config()["hyperpod-dpd:cluster"], "kubernetesVersion": 1.3},
        ),
        "hyperpod-dpd:cluster.kubernetesVersion: 1.3 is not allowed; must be quoted text such "
        'as "1.35", since YAML reads an unquoted 1.30 as the number 1.3',
    ),
    "a Kubernetes version that holds no version at all": (
        setting(
            "hyperpod-dpd:cluster",
            {**dev_config()["hyperpod-dpd:cluster"], "kubernetesVersion": "latest"},
        ),
        "hyperpod-dpd:cluster.kubernetesVersion: 'latest' is not allowed; EKS takes a "
        "major.minor version such as '1.35', without 'v' or a patch number",
    ),
    "an endpoint name Kubernetes refuses, in words rather than a regex": (
        endpoint(name="Dpd_Test"),
        f"{EP}.name: 'Dpd_Test' is not allowed; must be a Kubernetes name: at most 63 lowercase "
        "letters, digits or '-', starting and ending with a letter or digit",
    ),
    "an instance group name HyperPod refuses": (
        gpu_group(name="p5_dpd"),
        "hyperpod-dpd:cluster.instanceGroups[0].name: 'p5_dpd' is not allowed; must be 1 to 63 "
        "letters, digits or '-', starting and ending with a letter or digit (HyperPod's rule)",
    ),
    "a mapping where a setting's mapping of other keys goes, answered with those keys": (
        setting("hyperpod-dpd:operator", {"installed": "v1.3.0-eksbuild.1"}),
        "hyperpod-dpd:operator.installed: 'v1.3.0-eksbuild.1' is not allowed; must be a mapping "
        "of settings (operatorVersion, addonVersion)",
    ),
    "a boolean where text goes": (
        env("ENABLE_FEATURE", True),
        f"{EP}.environmentVariables.ENABLE_FEATURE: true is not allowed; must be text (quote it)",
    ),
    "an AZ name where an AZ ID goes": (
        gpu_group(availabilityZoneId="us-west-2b"),
        "hyperpod-dpd:cluster.instanceGroups[0].availabilityZoneId: 'us-west-2b' is not "
        "allowed; must be an AZ ID such as usw2-az2 (the region's short code, -az and a "
        "number; `aws ec2 describe-availability-zones` lists them as ZoneId), not an AZ name "
        "such as us-west-2b",
    ),
    "a setting under a misspelt namespace, which Pulumi hands to no program": (
        setting("hyperpod_dpd:observability", {"enabled": True}),
        "hyperpod_dpd:observability: is in namespace hyperpod_dpd, which this program never "
        "reads; did you mean hyperpod-dpd:observability?",
    ),
    "a switch written as a word": (
        setting("hyperpod-dpd:observability", {"enabled": "yes"}),
        "hyperpod-dpd:observability.enabled: 'yes' is not allowed; must be true or false",
    ),
    "a negative PD buffer": (
        endpoint(pdBufferSize=-1),
        f"{EP}.pdBufferSize: -1 is not allowed; must be a size such as 8GiB",
    ),
    # Identifiers AWS and the operator check against a pattern: refused in words, with an
    # example of a value they take, never with the regex.
    "an IAM role named where its ARN goes": (
        cluster(adminRoleArns=["dpd-admins"]),
        "hyperpod-dpd:cluster.adminRoleArns[0]: 'dpd-admins' is not allowed; must be an IAM role "
        "or user ARN such as arn:aws:iam::123456789012:role/name",
    ),
    "a training plan named where its ARN goes": (
        gpu_group(trainingPlanArn="dpd-plan"),
        "hyperpod-dpd:cluster.instanceGroups[0].trainingPlanArn: 'dpd-plan' is not allowed; must "
        "be a SageMaker training plan ARN such as "
        "arn:aws:sagemaker:us-west-2:123456789012:training-plan/name",
    ),
    "an existing HyperPod cluster named where its ARN goes": (
        cluster(existing={"eksClusterName": "dpd", "hyperpodClusterArn": "dpd"}),
        "hyperpod-dpd:cluster.existing.hyperpodClusterArn: 'dpd' is not allowed; must be a "
        "HyperPod cluster ARN such as arn:aws:sagemaker:us-west-2:123456789012:cluster/"
        "abcdef012345 (its ClusterArn in `aws sagemaker list-clusters`)",
    ),
    "a vpc-cni version without its v": (
        cluster(addonVersions={"vpcCni": "1.19.0"}),
        "hyperpod-dpd:cluster.addonVersions.vpcCni: '1.19.0' is not allowed; must be an EKS "
        "add-on version: v, three numbers and an optional -eksbuild.N, such as v1.19.0-eksbuild.1",
    ),
    "a VPC's CIDR where its ID goes": (
        existing_network(vpcId="10.0.0.0/16"),
        "hyperpod-dpd:network.existing.vpcId: '10.0.0.0/16' is not allowed; must be a VPC ID: "
        "vpc- and 8 to 17 lowercase hex digits, such as vpc-0123456789abcdef0",
    ),
    "a subnet's name where its ID goes": (
        existing_network(privateSubnetIds={"usw2-az2": "private-a"}),
        "hyperpod-dpd:network.existing.privateSubnetIds.usw2-az2: 'private-a' is not allowed; "
        "must be a subnet ID: subnet- and 8 to 17 lowercase hex digits, such as "
        "subnet-0123456789abcdef0",
    ),
    "a security group's name where its ID goes": (
        existing_network(securityGroupId="default"),
        "hyperpod-dpd:network.existing.securityGroupId: 'default' is not allowed; must be a "
        "security group ID: sg- and 8 to 17 lowercase hex digits, such as sg-0123456789abcdef0",
    ),
    "a KMS alias where a key ARN goes": (
        setting("hyperpod-dpd:buckets", {"kmsKeyArn": "alias/aws/s3"}),
        "hyperpod-dpd:buckets.kmsKeyArn: 'alias/aws/s3' is not allowed; must be a KMS key ARN "
        "such as arn:aws:kms:us-west-2:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
    ),
    "a Prometheus workspace ID where its ARN goes": (
        setting("hyperpod-dpd:observability", {"enabled": True, "prometheusWorkspaceArn": "ws-1"}),
        "hyperpod-dpd:observability.prometheusWorkspaceArn: 'ws-1' is not allowed; must be an "
        "Amazon Managed Prometheus workspace ARN such as "
        "arn:aws:aps:us-west-2:123456789012:workspace/ws-0123abcd-4567-89ef-0123-456789abcdef",
    ),
    "an operator version written like an add-on's": (
        setting("hyperpod-dpd:operator", {"operatorVersion": "v3.2"}),
        "hyperpod-dpd:operator.operatorVersion: 'v3.2' is not allowed; must be an operator "
        "version: two or three numbers, such as 3.2 or 3.3.1",
    ),
    "a dependency pinned without its v, answered with its own floor": (
        setting("hyperpod-dpd:operator", {"dependencyVersions": {"certManager": "1.18.2"}}),
        "hyperpod-dpd:operator.dependencyVersions.certManager: '1.18.2' is not allowed; must be "
        "an EKS add-on version: v, three numbers and an optional -eksbuild.N, such as "
        "v1.18.2-eksbuild.2",
    ),
    "a model name the operator refuses": (
        endpoint(modelName="-llama"),
        f"{EP}.modelName: '-llama' is not allowed; must be at most 63 characters, starting with "
        "a letter or digit, such as Llama-3.3-70B-Instruct (the operator's rule)",
    ),
    "a metrics path without its slash": (
        endpoint(metrics={"modelMetrics": {"path": "metrics"}}),
        f"{EP}.metrics.modelMetrics.path: 'metrics' is not allowed; must be a URL path of "
        "letters, digits, '-', '_', '.' or '/', starting with '/', such as /metrics",
    ),
    "a certificate ID where its ARN goes": (
        endpoint(
            tlsConfig={
                "customCertificateConfig": {
                    "acmArn": "certificate/0123abcd",
                    "domainName": "inference.example.com",
                }
            }
        ),
        f"{EP}.tlsConfig.customCertificateConfig.acmArn: 'certificate/0123abcd' is not allowed; "
        "must be an ACM certificate ARN such as "
        "arn:aws:acm:us-west-2:123456789012:certificate/0123abcd-4567-89ef-0123-456789abcdef",
    ),
    "a workspace address with the trailing slash AMP's console shows": (
        role(
            "decode",
            autoscaling={
                "maxReplicas": 2,
                "serverAddress": "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1/",
            },
        ),
        f"{EP}.decode.autoscaling.serverAddress: "
        "'https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1/' is not allowed; must "
        "be an Amazon Managed Prometheus workspace address such as "
        "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-0123abcd-4567-89ef-"
        "0123-456789abcdef, without a trailing '/'",
    ),
    "a worker resource that is not a quantity, refused on its setting rather than the CRD": (
        endpoint(workerResources={"cpu": "96", "memory": "16 GB"}),
        f"{EP}.workerResources.memory: '16 GB' is not allowed; must be a Kubernetes quantity such "
        "as 500m, 4 or 16Gi",
    ),
    "DeepSeek-V3 on H100s, whose weights fit at no gpuMemoryUtilization": (
        endpoint(modelName="DeepSeek-V3"),
        f"{EP}.instanceType: ml.p5.48xlarge cannot hold the model's weights at tensorParallelSize "
        "8, at any gpuMemoryUtilization: they take 78.11 GiB per GPU, and each 79.65 GiB H100 "
        "has 69.65 GiB for vLLM beside the 8 GiB pdBufferSize and 2 GiB of CUDA overhead; "
        "allowed: an instanceType with more memory per GPU (ml.p5e.48xlarge, ml.p5en.48xlarge, "
        "ml.p6-b200.48xlarge, ml.p6-b300.48xlarge), or quantized weights (a lower "
        "architecture.weightBytesPerParameter)",
    ),
    **{
        f"{name}: true": (
            change,
            f"{key}: true is not allowed; must be a number, not true or false",
        )
        for name, change, key in (
            ("tensorParallelSize", endpoint(tensorParallelSize=True), f"{EP}.tensorParallelSize"),
            ("replicas", role("decode", replicas=True), f"{EP}.decode.replicas"),
            ("gpus", role("prefill", gpus=True), f"{EP}.prefill.gpus"),
            (
                "instanceCount",
                gpu_group(instanceCount=True),
                "hyperpod-dpd:cluster.instanceGroups[0].instanceCount",
            ),
            (
                "gpuMemoryUtilization",
                endpoint(gpuMemoryUtilization=True),
                f"{EP}.gpuMemoryUtilization",
            ),
        )
    },
}


@pytest.mark.parametrize("case", CRASHES)
def test_what_crashed_is_one_line(tmp_path, capsys, case):
    change, line = CRASHES[case]
    assert _refused(tmp_path, capsys, change) == [line.format(tmp=tmp_path)]


@pytest.mark.parametrize("case", SECRETS)
def test_a_secret_in_plain_text_is_refused_with_the_secret_backed_way(tmp_path, capsys, case):
    change, line = SECRETS[case]
    assert _refused(tmp_path, capsys, change) == [line]


@pytest.mark.parametrize("case", MESSAGES)
def test_a_refusal_says_what_is_wrong(tmp_path, capsys, case):
    change, line = MESSAGES[case]
    assert _refused(tmp_path, capsys, change) == [line]


def _patterns(schema: object) -> set[str]:
    if isinstance(schema, dict):
        own = {schema["pattern"]} if isinstance(schema.get("pattern"), str) else set()
        return own.union(*(_patterns(v) for v in schema.values()))
    if isinstance(schema, list):
        return set().union(*(_patterns(v) for v in schema))
    return set()


def test_no_setting_is_refused_with_a_regex():
    # pydantic refuses a Field(pattern=...) with the regex itself ("should match pattern
    # '^arn:aws...'"); shaped_str says the shape in words. ByteSize's own pattern is answered
    # "must be a size such as 8GiB".
    byte_size = _patterns(TypeAdapter(ByteSize).json_schema())
    assert _patterns(StackSettings.model_json_schema()) <= byte_size


# Unusual but valid: these must render.
VALID = {
    "a quoted tensorParallelSize, as every whole-number key takes": endpoint(
        tensorParallelSize="8"
    ),
    "a quoted instanceCount": gpu_group(instanceCount="2"),
    "variables that name tokens without holding one": env("HF_TOKEN_PATH", "/var/run/hf"),
    "a tokenizer setting": env("TOKENIZERS_PARALLELISM", "false"),
    "a switch about tokens": env("HF_HUB_DISABLE_IMPLICIT_TOKEN", "1"),
    "a bare --hf-token, which reads the login's token": endpoint(workerArgs=["--hf-token"]),
    "an unrelated namespace's key": setting("other:key", "value"),
}


@pytest.mark.parametrize("case", VALID)
def test_unusual_but_valid_input_renders(tmp_path, case):
    config = dev_config()
    VALID[case](config, tmp_path)
    out = tmp_path / "out"
    assert main(["render", "--config-file", config_file(tmp_path, config), "--out", str(out)]) == 0


def test_a_password_in_the_redis_url_is_warned_about_since_lmcache_takes_it_nowhere_else():
    config = dev_config()
    config["hyperpod-dpd:endpoints"][0]["kvCache"] = {
        "l2CacheBackend": "redis",
        "l2CacheLocalUrl": "rediss://user:pw@cache.internal:6380/0",
    }
    assert f"{EP}.kvCache.l2CacheLocalUrl: holds a password, which sits in plain text" in "\n".join(
        render(config).warnings
    )
