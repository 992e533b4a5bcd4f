"""What a careless or hostile stack file gets: one line naming the full key, before anything
deploys (issue 21, sections 2 to 4); and unusual but valid settings still pass.

Each case sets dotted paths in the dev stack (`endpoints[0].workerArgs`), and names the key
the refusal must start with and words it must say.
"""

import copy
import itertools
import re
from typing import Any

import pytest

from tests.support import (
    dev_config,
    endpoint_configs,
    problem_for,
    problems,
    prod_config_as_shipped,
    render,
)

P = "hyperpod-dpd"
GPU_GROUP = "cluster.instanceGroups[0]"
SYSTEM_GROUP = "cluster.instanceGroups[1]"


def _set(config: dict[str, Any], path: str, value: Any) -> None:
    """Set `endpoints[0].prefill.args` (a key under the project) in `config`."""
    parts: list[Any] = [
        int(i) if i else name for name, i in re.findall(r"([^.\[\]]+)|\[(\d+)\]", path)
    ]
    parts[0] = f"{P}:{parts[0]}"
    node = config
    for part, following in itertools.pairwise(parts):
        if isinstance(node, dict) and part not in node:
            node[part] = [] if isinstance(following, int) else {}
        if isinstance(node, list) and part == len(node):
            node.append({})
        node = node[part]
    if isinstance(node, list) and parts[-1] == len(node):
        node.append(value)
    else:
        node[parts[-1]] = value


def dev_with(changes: dict[str, Any]) -> dict[str, Any]:
    config = dev_config()
    for path, value in changes.items():
        _set(config, path, copy.deepcopy(value))
    return config


def refusal(changes: dict[str, Any], key: str) -> str:
    return problem_for(f"{P}:{key}", problems(dev_with(changes)))


# Section 2: what would override what sizing computed, or what a guardrail holds.
SILENT_OVERRIDES = [
    (
        {"endpoints[0].workerArgs": ["-tp", "4"]},
        "endpoints[0].workerArgs",
        "written from tensorParallelSize",
    ),
    (
        {"endpoints[0].workerArgs": ["--tensor_parallel_size", "4"]},
        "endpoints[0].workerArgs",
        "vLLM reads it as --tensor-parallel-size",
    ),
    (
        {"endpoints[0].workerArgs": ["--max_model_len=131072"]},
        "endpoints[0].workerArgs",
        "written from maxModelLen",
    ),
    (
        {"endpoints[0].workerArgs": ["--max-model", "8192"]},
        "endpoints[0].workerArgs",
        "vLLM reads it as --max-model-len",
    ),
    (
        {"endpoints[0].prefill.args": ["-tp=2"]},
        "endpoints[0].prefill.args",
        "written from tensorParallelSize",
    ),
    (
        {"endpoints[0].decode.args": ["--max_num_seqs", "64"]},
        "endpoints[0].decode.args",
        "written from decode.maxNumSeqs",
    ),
    (
        {"endpoints[0].workerArgs": ["--max-num-seqs", "64"]},
        "endpoints[0].workerArgs",
        "prefill.maxNumSeqs and decode.maxNumSeqs",
    ),
    (
        {"endpoints[0].prefill.args": ["--gpu_memory_utilization=0.9"]},
        "endpoints[0].prefill.args",
        "prefill.gpuMemoryUtilization",
    ),
    (
        {"endpoints[0].workerArgs": ["--kv-transfer-config", "{}"]},
        "endpoints[0].workerArgs",
        "configures each role's KV transfer",
    ),
    (
        {"endpoints[0].decode.args": ["--kv_transfer_config.kv_role", "kv_both"]},
        "endpoints[0].decode.args",
        "configures each role's KV transfer",
    ),
    ({"endpoints[0].workerArgs": ["-pp", "2"]}, "endpoints[0].workerArgs", "not allowed above 1"),
    (
        {"endpoints[0].workerArgs": ["--data_parallel_size=2"]},
        "endpoints[0].workerArgs",
        "not allowed above 1",
    ),
    ({"endpoints[0].workerArgs": ["--port=9000"]}, "endpoints[0].workerArgs", "is fixed"),
    (
        {"endpoints[0].workerArgs": ["--enable-prefix-caching --block-size 32"]},
        "endpoints[0].workerArgs[0]",
        "several arguments in one list item",
    ),
    (
        {"endpoints[0].prefill.args": ["--block-size", "32 --enforce-eager"]},
        "endpoints[0].prefill.args[1]",
        "several arguments",
    ),
    (
        {"endpoints[0].decode.maxNumSeqs": 50000},
        "endpoints[0].decode.maxNumSeqs",
        "default max_num_batched_tokens of 8192",
    ),
    (
        {
            "endpoints[0].prefill.maxNumSeqs": 4096,
            "endpoints[0].prefill.args": ["--max-num-batched-tokens", "2k"],
        },
        "endpoints[0].prefill.maxNumSeqs",
        "--max-num-batched-tokens 2000",
    ),
    (
        {
            "endpoints[0].decode.args": [
                "--no-enable-chunked-prefill",
                "--max-num-batched-tokens",
                "4096",
            ]
        },
        "endpoints[0].decode.args",
        "below maxModelLen 16384",
    ),
    (
        {"endpoints[0].maxModelLen": 262144, "endpoints[0].routingThreshold": 4096},
        "endpoints[0].maxModelLen",
        "more than the 131072 tokens llama-3.3-70b supports",
    ),
    (
        {"endpoints[0].specOverrides": {"pdSpec": {"topologySpec": {"sameAZ": False}}}},
        "endpoints[0].specOverrides.pdSpec.topologySpec",
        "setting topologySpec",
    ),
    (
        {"endpoints[0].specOverrides": {"pdSpec": {"prefillSpec": {"args": ["-tp", "4"]}}}},
        "endpoints[0].specOverrides.pdSpec.prefillSpec",
        "setting prefill",
    ),
    (
        {"endpoints[0].specOverrides": {"instanceTypes": ["ml.p5.48xlarge"]}},
        "endpoints[0].specOverrides.instanceTypes",
        "setting instanceType",
    ),
    (
        {
            "endpoints[0].specOverrides": {
                "worker": {"modelInvocationPort": {"containerPort": 9000}}
            }
        },
        "endpoints[0].specOverrides.worker.modelInvocationPort",
        "routes to port 8000",
    ),
]


@pytest.mark.parametrize("changes, key, says", SILENT_OVERRIDES)
def test_what_would_override_sizing_or_a_guardrail_is_refused(changes, key, says):
    assert says in refusal(changes, key)


# Section 3: free strings that AWS, Kubernetes, vLLM or LMCache would refuse later.
UNCHECKED_STRINGS = [
    ({"cluster.kubernetesVersion": "v1.34"}, "cluster.kubernetesVersion", "such as '1.34'"),
    (
        {"cluster.kubernetesVersion": "1.34.2"},
        "cluster.kubernetesVersion",
        "without 'v' or a patch number",
    ),
    (
        {"cluster.addonVersions": {"coredns": "latest"}},
        "cluster.addonVersions.coredns",
        "v1.34.1-eksbuild.2",
    ),
    (
        {"cluster.addonVersions": {"podIdentityAgent": "1.3.8"}},
        "cluster.addonVersions.podIdentityAgent",
        "EKS add-on version",
    ),
    (
        {"cluster.addonVersions": {"kubeProxy": "v1.33.5-eksbuild.2"}},
        "cluster.addonVersions.kubeProxy",
        "runs Kubernetes 1.35",
    ),
    (
        {f"{GPU_GROUP}.taints": [{"key": "gpu", "value": "", "effect": "PreferNoSchedule"}]},
        f"{GPU_GROUP}.taints[0].value",
        "no empty value",
    ),
    (
        {f"{GPU_GROUP}.taints": [{"key": "bad key", "effect": "PreferNoSchedule"}]},
        f"{GPU_GROUP}.taints[0].key",
        "qualified name",
    ),
    (
        {f"{GPU_GROUP}.taints": [{"key": "k", "value": "a/b", "effect": "PreferNoSchedule"}]},
        f"{GPU_GROUP}.taints[0].value",
        "1 to 63 letters",
    ),
    (
        {
            f"{GPU_GROUP}.taints": [
                {"key": f"k{i}", "effect": "PreferNoSchedule"} for i in range(51)
            ]
        },
        f"{GPU_GROUP}.taints",
        "at most 50 per instance group",
    ),
    ({f"{GPU_GROUP}.labels": {"team": ""}}, f"{GPU_GROUP}.labels.team", "no empty value"),
    (
        {f"{GPU_GROUP}.labels": {f"l{i}": "x" for i in range(51)}},
        f"{GPU_GROUP}.labels",
        "at most 50 per instance group",
    ),
    (
        {"cluster.autoscaling": {"enabled": True}, f"{GPU_GROUP}.name": "P5-DPD"},
        f"{GPU_GROUP}.name",
        "Karpenter NodePool",
    ),
    ({"endpoints[0].tags": {"aws:team": "ml"}}, "endpoints[0].tags", "AWS reserves"),
    ({"endpoints[0].tags": {"k" * 129: "v"}}, "endpoints[0].tags", "at most 128"),
    ({"endpoints[0].tags": {"team": "v" * 257}}, "endpoints[0].tags", "at most 256"),
    ({"endpoints[0].tags": {"team": "a|b"}}, "endpoints[0].tags", "holds '|'"),
    ({"endpoints[0].tags": {f"t{i}": "v" for i in range(51)}}, "endpoints[0].tags", "at most 50"),
    (
        {"endpoints[0].modelSource.s3": {"prefix": "x", "bucket": "My_Bucket"}},
        "endpoints[0].modelSource.s3.bucket",
        "S3 bucket names must be 3 to 63 lowercase",
    ),
    (
        {"endpoints[0].modelSource.s3": {"prefix": "s3://models/llama"}},
        "endpoints[0].modelSource.s3.prefix",
        "bucket: models and prefix: llama",
    ),
    (
        {
            "endpoints[0].modelSource": {
                "fsx": {"fileSystemId": "fs-0123456789abcdef0", "mountName": "toolongname"}
            }
        },
        "endpoints[0].modelSource.fsx.mountName",
        "1 to 8 letters",
    ),
    (
        {
            "endpoints[0].modelSource": {
                "fsx": {"fileSystemId": "fs-0123456789abcdef0", "dnsName": "fsx.local"}
            }
        },
        "endpoints[0].modelSource.fsx.dnsName",
        "DNS name",
    ),
    (
        {"endpoints[0].name": "70b-llama", "endpoints[0].endpointName": "llama-70b"},
        "endpoints[0].name",
        "must start with a letter",
    ),
    (
        {"endpoints[0].name": "a" * 30, "endpoints[0].namespace": "b" * 20},
        "endpoints[0].name",
        "over Kubernetes' 63",
    ),
    ({"endpoints[0].image": ""}, "endpoints[0].image", "container image reference"),
    (
        {"endpoints[0].image": "vLLM/OpenAI:latest"},
        "endpoints[0].image",
        "lowercase repository path",
    ),
    (
        {"endpoints[0].healthCheckPath": "/he alth"},
        "endpoints[0].healthCheckPath",
        "without spaces",
    ),
    (
        {
            "endpoints[0].kvCache": {
                "l2CacheBackend": "redis",
                "l2CacheLocalUrl": "https://cache:6379",
            }
        },
        "endpoints[0].kvCache.l2CacheLocalUrl",
        "redis://, rediss://",
    ),
    (
        {"endpoints[0].environmentVariables": {"BLOB": "x" * (2 * 1024 * 1024)}},
        "endpoints[0].environmentVariables.BLOB",
        "etcd's 1.5 MiB",
    ),
    ({"network.vpcCidr": "127.0.0.0/16"}, "network.vpcCidr", "loopback"),
    ({"network.vpcCidr": "224.0.0.0/16"}, "network.vpcCidr", "multicast"),
    ({"network.vpcCidr": "169.254.0.0/16"}, "network.vpcCidr", "link-local"),
    (
        {"network.privateSubnetCidrs": {"usw2-az2": "240.0.0.0/20"}},
        "network.privateSubnetCidrs.usw2-az2",
        "reserved",
    ),
    (
        {"cluster.endpointAccess.publicCidrs": ["10.0.0.0/8"]},
        "cluster.endpointAccess.publicCidrs",
        "public (NAT) addresses, never these",
    ),
    (
        {"cluster.endpointAccess.publicCidrs": ["100.64.0.0/16"]},
        "cluster.endpointAccess.publicCidrs",
        "RFC 6598",
    ),
    (
        {"cluster.endpointAccess.publicCidrs": ["52.94.76.7"]},
        "cluster.endpointAccess.publicCidrs",
        "has no prefix length; write 52.94.76.7/32",
    ),
    (
        {"cluster.endpointAccess.publicCidrs": ["52.94.76.7/22"]},
        "cluster.endpointAccess.publicCidrs",
        "did you mean 52.94.76.0/22?",
    ),
    *[
        (
            {"endpoints[0].invocationEndpoint": path},
            "endpoints[0].invocationEndpoint",
            "the path the operator appends to http://<host>:<port>/",
        )
        for path in ("", "v1 chat/completions", "https://llm.example.com/v1/completions")
    ],
    *[
        (
            {"endpoints[0].environmentVariables": {name: "0,1"}},
            f"endpoints[0].environmentVariables.{name}",
            "the device plugin makes visible the GPUs prefill.gpus and decode.gpus request",
        )
        for name in ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES")
    ],
    *[
        ({"endpoints[0].workerArgs": args}, "endpoints[0].workerArgs[2]", "an empty argument")
        for args in (["--block-size", "32", ""], ["--enforce-eager", "--block-size=32", " "])
    ],
    *[
        ({key: value}, key, "must be true or false")
        for key in (
            "observability.enabled",
            "buckets.protect",
            "cluster.autoscaling.enabled",
            "endpoints[0].kvCache.enableL1Cache",
        )
        for value in ("yes", 1, 0, "off")
    ],
]


@pytest.mark.parametrize("changes, key, says", UNCHECKED_STRINGS)
def test_a_string_aws_or_kubernetes_would_refuse_is_refused(changes, key, says):
    assert says in refusal(changes, key)


# Section 4: settings each fine alone that deploy a broken stack together.
CROSS_SETTINGS = [
    *[
        (
            {
                "cluster.existing": {
                    "eksClusterName": "shared",
                    "hyperpodClusterArn": (
                        "arn:aws:sagemaker:us-west-2:123456789012:cluster/abc123def456"
                    ),
                }
            },
            key,
            "applies to a cluster this stack builds, but cluster.existing adopts one",
        )
        for key in ("network", "cluster.instanceGroups", "cluster.kubernetesVersion")
    ],
    (
        {"network.availabilityZoneIds": ["usw2-az2", "usw2-az3", "usw2-az2"]},
        "network.availabilityZoneIds[2]",
        "already availabilityZoneIds[0]",
    ),
    (
        {
            "network": {
                "existing": {
                    "vpcId": "vpc-0123456789abcdef0",
                    "privateSubnetIds": {
                        "usw2-az2": "subnet-0123456789abcdef0",
                        "usw2-az3": "subnet-0123456789abcdef0",
                    },
                }
            }
        },
        "network.existing.privateSubnetIds.usw2-az3",
        "already the subnet of usw2-az2",
    ),
    (
        {"buckets": {"model": {"name": "acme-dpd-shared"}, "logs": {"name": "acme-dpd-shared"}}},
        "buckets.model.name",
        "already the logs bucket's name",
    ),
    (
        {"operator": {"installed": {"operatorVersion": "3.4"}}},
        "operator.installed",
        "this stack creates the cluster",
    ),
    (
        {f"{GPU_GROUP}.taints": [{"key": "gpu", "effect": "NoSchedule"}]},
        f"{GPU_GROUP}.taints[0]",
        "sets no tolerations",
    ),
    (
        {
            f"{GPU_GROUP}.taints": [
                {"key": "gpu", "effect": "PreferNoSchedule"},
                {"key": "x", "value": "y", "effect": "NoExecute"},
            ],
            f"{SYSTEM_GROUP}.taints": [{"key": "system", "effect": "NoExecute"}],
        },
        f"{SYSTEM_GROUP}.taints[0]",
        "have no node to run on",
    ),
    (
        {
            "endpoints[0].decode.nodeSelector": {
                "node.kubernetes.io/instance-type": "ml.p5en.48xlarge"
            }
        },
        "endpoints[0].decode.nodeSelector.node.kubernetes.io/instance-type",
        "another instance type",
    ),
    (
        {"endpoints[0].prefill.nodeSelector": {"topology.kubernetes.io/zone": "us-east-1a"}},
        "endpoints[0].prefill.nodeSelector.topology.kubernetes.io/zone",
        "not a zone of us-west-2",
    ),
    (
        {"endpoints[0].decode.nodeSelector": {"kubernetes.io/arch": "arm64"}},
        "endpoints[0].decode.nodeSelector.kubernetes.io/arch",
        "carry kubernetes.io/arch=amd64",
    ),
    (
        {"endpoints[0].prefill.nodeSelector": {"topology.kubernetes.io/region": "us-east-1"}},
        "endpoints[0].prefill.nodeSelector.topology.kubernetes.io/region",
        "not the stack's region us-west-2",
    ),
    (
        {"cluster.endpointAccess.publicCidrs": [f"52.94.{i}.0/24" for i in range(41)]},
        "cluster.endpointAccess.publicCidrs",
        "at most 40",
    ),
    (
        {"cluster.endpointAccess.publicCidrs": ["198.51.100.0/24"]},
        "cluster.endpointAccess.publicCidrs",
        "TEST-NET-2",
    ),
    (
        {"cluster.endpointAccess.publicCidrs": ["127.0.0.1/32"]},
        "cluster.endpointAccess.publicCidrs",
        "loopback",
    ),
    (
        {
            "endpoints[0].prefill.autoscaling": {
                "minReplicas": 1,
                "maxReplicas": 1,
                "metric": "query",
                "query": "sum(rate(x[5m])",
                "target": 4,
            }
        },
        "endpoints[0].prefill.autoscaling.query",
        "not valid PromQL (unclosed left parenthesis)",
    ),
]


@pytest.mark.parametrize("changes, key, says", CROSS_SETTINGS)
def test_settings_that_break_each_other_are_refused(changes, key, says):
    assert says in refusal(changes, key)


def test_the_prod_example_as_shipped_is_refused_until_its_placeholder_is_replaced():
    found = problems(prod_config_as_shipped())
    assert found == [
        f"{P}:cluster.endpointAccess.publicCidrs: 203.0.113.0/24 lies in TEST-NET-3 "
        "(203.0.113.0/24), from which no client reaches the API; list the egress ranges of your "
        "deploy runners and VPN"
    ]


# Unusual but valid: none of these may be refused.
VALID_UNUSUAL = [
    {"endpoints[0].workerArgs": ["--enable-prefix-caching", "--block-size", "32"]},
    {"endpoints[0].workerArgs": ['--compilation-config={"level": 3, "x": "a --b"}']},
    {
        "endpoints[0].workerArgs": [
            "-O3",
            "--served-model-name",
            "llama",
            "--max-num-batched-tokens=16k",
        ]
    },
    {"endpoints[0].workerArgs": ["--data-parallel-size", "1", "-pp=1"]},
    {"endpoints[0].workerArgs": ["--model-impl", "vllm", "--model-loader-extra-config", "{}"]},
    {"endpoints[0].decode.maxNumSeqs": 8192},
    {
        "endpoints[0].decode.maxNumSeqs": 20000,
        "endpoints[0].decode.args": ["--max-num-batched-tokens", "32K"],
    },
    {"endpoints[0].maxModelLen": 131072, "endpoints[0].routingThreshold": 4096},
    {
        "endpoints[0].maxModelLen": 262144,
        "endpoints[0].pdBufferSize": "16GiB",
        "endpoints[0].environmentVariables": {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"},
    },
    {"endpoints[0].specOverrides": {"loadBalancer": {"routingAlgorithm": "round_robin"}}},
    {"endpoints[0].specOverrides": {"maxDeployTimeInSeconds": 7200}},
    {"endpoints[0].tags": {"Équipe data": "ML/Inference @ acme:+=_.-", "empty": ""}},
    {
        "endpoints[0].image": "123456789012.dkr.ecr.us-west-2.amazonaws.com/vllm-dpd:0.19.0@sha256:"
        + "a" * 64
    },
    {"endpoints[0].image": "localhost:5000/team/vllm__dpd"},
    {"endpoints[0].healthCheckPath": "/v1/models?format=json&x=%20"},
    {
        "endpoints[0].modelSource.s3": {
            "prefix": "models/llama-3.3/",
            "bucket": "acme.models-us-west-2",
        }
    },
    {
        "endpoints[0].modelSource": {
            "fsx": {
                "fileSystemId": "fs-0123456789abcdef0",
                "dnsName": "fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com",
                "mountName": "ab_c-12",
            }
        }
    },
    {
        "endpoints[0].kvCache": {
            "l2CacheBackend": "redis",
            "l2CacheLocalUrl": "rediss://user:pw@cache.internal:6380/0",
        }
    },
    {
        "endpoints[0].kvCache": {
            "l2CacheBackend": "redis",
            "l2CacheLocalUrl": "redis-sentinel://s1:26379,s2:26379",
        }
    },
    {"endpoints[0].environmentVariables": {"BIG": "x" * (200 * 1024)}},
    {"endpoints[0].name": "llama-70b", "endpoints[0].namespace": "n" * 30},
    {"cluster.kubernetesVersion": "1.33"},
    {
        "cluster.kubernetesVersion": "1.34",
        "cluster.addonVersions": {
            "kubeProxy": "v1.34.1-eksbuild.2",
            "coredns": "v1.12.3-eksbuild.1",
            "podIdentityAgent": "v1.3.8-eksbuild.2",
        },
    },
    {
        f"{GPU_GROUP}.taints": [
            {"key": "example.com/gpu", "effect": "PreferNoSchedule"},
            {"key": "a", "value": "b", "effect": "NoSchedule"},
        ],
        "cluster.instanceGroups[2]": {
            "name": "p5-open",
            "instanceType": "ml.p5.48xlarge",
            "instanceCount": 1,
            "availabilityZoneId": "usw2-az2",
        },
    },
    {f"{SYSTEM_GROUP}.taints": [{"key": "CriticalAddonsOnly", "effect": "NoSchedule"}]},
    {f"{GPU_GROUP}.labels": {"example.com/team": "ml", "tier": "A_1.b"}},
    {
        "cluster.autoscaling": {"enabled": True},
        f"{GPU_GROUP}.instanceCount": 2,
        f"{GPU_GROUP}.name": "p5-dpd-2",
    },
    {
        "endpoints[0].decode.nodeSelector": {
            "node.kubernetes.io/instance-type": "ml.p5.48xlarge",
            "topology.kubernetes.io/zone": "us-west-2b",
            "topology.kubernetes.io/region": "us-west-2",
            "kubernetes.io/arch": "amd64",
        }
    },
    {"endpoints[0].workerArgs": ["--served-model-name", ""]},
    {"endpoints[0].invocationEndpoint": "/v1/chat/completions?stream=false"},
    {"endpoints[0].tags": {"costCenter": 1234, "team": "ml-platform"}},
    {
        "cluster.instanceGroups[0].labels": {"tier": 1},
        "endpoints[0].prefill.nodeSelector": {"tier": 1},
    },
    {"observability.enabled": "true", "buckets.protect": "False"},
    {"network.vpcCidr": "100.64.0.0/16"},
    {"network.vpcCidr": "172.31.0.0/16"},
    {"cluster.endpointAccess.publicCidrs": [f"52.94.{i}.0/24" for i in range(40)]},
    {
        "endpoints[0].prefill.autoscaling": {
            "minReplicas": 1,
            "maxReplicas": 1,
            "metric": "query",
            "query": 'sum by (pod) (rate(vllm:prompt_tokens_total{namespace="default"}[2m]))',
            "target": 4,
        }
    },
]


@pytest.mark.parametrize("changes", VALID_UNUSUAL)
def test_unusual_but_valid_settings_pass(changes):
    assert endpoint_configs(render(dev_with(changes)))
