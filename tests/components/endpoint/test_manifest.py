from typing import Any

import pytest
from pydantic import BaseModel

from components.endpoint.checks import check_endpoint
from components.endpoint.manifest import build_manifest, check_metrics_port, environment
from components.endpoint.overrides import (
    field_owners,
    leaf_paths,
    owned_field,
)
from components.endpoint.schema import schema_errors
from components.endpoint.spec import EndpointSpec
from components.endpoint.vllm_args import effective_args
from tests.components.endpoint.items import endpoint_problem, endpoint_problems
from tests.support import DPD_ONLY_KEYS, dev_endpoint

MINIMAL = {
    "name": "chat",
    "modelName": "Llama-3.3-70B-Instruct",
    "modelSource": {"s3": {"prefix": "llama"}},
    "instanceType": "ml.p5.48xlarge",
    "maxModelLen": 16384,
}


def spec(**changes: Any) -> EndpointSpec:
    return EndpointSpec.model_validate({**MINIMAL, **changes})


def manifest(**changes: Any) -> dict:
    return build_manifest(spec(**changes), model_bucket="weights", region="us-east-2")


def env_of(endpoint: EndpointSpec) -> dict[str, str]:
    return {e["name"]: e["value"] for e in environment(endpoint)}


def test_the_three_dpd_variables_are_always_present_as_strings():
    assert env_of(spec()) == {
        "PD_BUFFER_SIZE": "8589934592",
        "LMCACHE_SAVE_DECODE_CACHE": "False",
        "PYTHONHASHSEED": "0",
    }


def test_user_variables_come_first_and_are_strings():
    endpoint = spec(environmentVariables={"HF_HOME": "/tmp/hf", "NCCL_DEBUG": 1})
    names = [e["name"] for e in environment(endpoint)]
    assert names == [
        "HF_HOME",
        "NCCL_DEBUG",
        "PD_BUFFER_SIZE",
        "LMCACHE_SAVE_DECODE_CACHE",
        "PYTHONHASHSEED",
    ]
    assert env_of(endpoint)["NCCL_DEBUG"] == "1"


def test_restating_a_pinned_variable_with_its_value_does_not_repeat_it():
    names = [e["name"] for e in environment(spec(environmentVariables={"PYTHONHASHSEED": "0"}))]
    assert names.count("PYTHONHASHSEED") == 1


@pytest.mark.parametrize(
    "size, expected",
    [
        ("8GiB", "8589934592"),
        ("16 GiB", "17179869184"),
        (1073741824, "1073741824"),
        ("32GiB", "34359738368"),
    ],
)
def test_pd_buffer_size_accepts_human_units_and_is_emitted_in_bytes(size, expected):
    assert env_of(spec(pdBufferSize=size))["PD_BUFFER_SIZE"] == expected


def test_worker_args_come_from_the_typed_settings_then_the_extra_args():
    args = manifest(
        tensorParallelSize=4, gpuMemoryUtilization=0.8, workerArgs=["--enable-prefix-caching"]
    )["spec"]["worker"]["args"]
    assert args == [
        "--model",
        "/opt/ml/model",
        "--host",
        "0.0.0.0",
        "--port",
        "8000",
        "--tensor-parallel-size",
        "4",
        "--max-model-len",
        "16384",
        "--gpu-memory-utilization",
        "0.8",
        "--enable-prefix-caching",
    ]


def test_role_settings_become_role_args_and_merge_over_the_worker_args():
    endpoint = spec(
        decode={"maxNumSeqs": 64, "gpuMemoryUtilization": 0.6, "args": ["--enforce-eager"]}
    )
    pd = build_manifest(endpoint, model_bucket="b", region="r")["spec"]["pdSpec"]
    assert pd["decodingSpec"]["args"] == [
        "--gpu-memory-utilization",
        "0.6",
        "--max-num-seqs",
        "64",
        "--enforce-eager",
    ]
    assert "args" not in pd["prefillSpec"]
    decode = effective_args(endpoint, endpoint.decode)
    assert decode[decode.index("--gpu-memory-utilization") + 1] == "0.6"
    assert decode[-3:] == ["--max-num-seqs", "64", "--enforce-eager"]
    prefill = effective_args(endpoint, endpoint.prefill)
    assert prefill[prefill.index("--gpu-memory-utilization") + 1] == "0.75"


def test_role_resources_request_and_limit_the_role_gpus():
    pd = manifest(prefill={"gpus": 4, "replicas": 2}, tensorParallelSize=4)["spec"]["pdSpec"]
    assert pd["prefillSpec"] == {
        "replicas": 2,
        "resources": {"requests": {"nvidia.com/gpu": "4"}, "limits": {"nvidia.com/gpu": "4"}},
    }
    assert pd["routingThreshold"] == 4096


def test_s3_source_takes_the_stack_bucket_and_region_unless_it_names_its_own():
    assert manifest()["spec"]["modelSourceConfig"] == {
        "modelSourceType": "s3",
        "modelLocation": "llama",
        "s3Storage": {"bucketName": "weights", "region": "us-east-2"},
    }
    own = manifest(modelSource={"s3": {"prefix": "p", "bucket": "mine", "region": "eu-west-1"}})
    assert own["spec"]["modelSourceConfig"]["s3Storage"] == {
        "bucketName": "mine",
        "region": "eu-west-1",
    }


def test_fsx_source():
    source = {
        "fsx": {
            "fileSystemId": "fs-0123456789abcdef0",
            "dnsName": "fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com",
            "mountName": "abcd",
            "path": "/models/llama",
        }
    }
    assert manifest(modelSource=source)["spec"]["modelSourceConfig"] == {
        "modelSourceType": "fsx",
        "modelLocation": "/models/llama",
        "fsxStorage": {
            "fileSystemId": "fs-0123456789abcdef0",
            "dnsName": "fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com",
            "mountName": "abcd",
        },
    }


def test_hugging_face_source_points_at_the_endpoint_token_secret():
    source = {
        "huggingFace": {
            "modelId": "meta-llama/Llama-3.3-70B-Instruct",
            "commitSHA": "a" * 40,
            "tokenConfigKey": "hfToken",
        }
    }
    assert manifest(modelSource=source)["spec"]["modelSourceConfig"] == {
        "modelSourceType": "huggingface",
        "huggingFaceModel": {
            "modelId": "meta-llama/Llama-3.3-70B-Instruct",
            "commitSHA": "a" * 40,
            "tokenSecretRef": {"name": "chat-hf-token", "key": "token"},
        },
    }


def test_hugging_face_source_can_use_an_existing_secret():
    source = {
        "huggingFace": {"modelId": "org/model", "tokenSecretRef": {"name": "hf", "key": "tok"}}
    }
    model = manifest(modelSource=source)["spec"]["modelSourceConfig"]["huggingFaceModel"]
    assert model["tokenSecretRef"] == {"name": "hf", "key": "tok"}


def test_l2_cache_is_enabled_by_naming_a_backend():
    kv = manifest(kvCache={"l2CacheBackend": "redis", "l2CacheLocalUrl": "redis://r:6379"})
    assert kv["spec"]["kvCacheSpec"] == {
        "enableL1Cache": True,
        "enableL2Cache": True,
        "l2CacheSpec": {"l2CacheBackend": "redis", "l2CacheLocalUrl": "redis://r:6379"},
    }


def test_intelligent_routing_is_always_explicit():
    assert manifest(routingStrategy="roundrobin")["spec"]["intelligentRoutingSpec"] == {
        "enabled": True,
        "routingStrategy": "roundrobin",
    }


def test_optional_fields_are_left_to_the_operator_defaults_when_unset():
    built = manifest()["spec"]
    for absent in ("endpointName", "invocationEndpoint", "loadBalancer", "tags"):
        assert absent not in built


def test_spec_overrides_add_fields_the_settings_do_not_write():
    built = manifest(
        specOverrides={
            "pdSpec": {"topologySpec": {"placementGroup": "pg"}},
            "maxDeployTimeInSeconds": 7200,
        }
    )
    assert built["spec"]["pdSpec"]["topologySpec"] == {"placementGroup": "pg"}
    assert built["spec"]["pdSpec"]["routingThreshold"] == 4096
    assert built["spec"]["maxDeployTimeInSeconds"] == 7200


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {
            "endpointName": "chat",
            "invocationEndpoint": "v1/completions",
            "healthCheckPath": "/health",
            "tags": {"team": "ml"},
            "topologySpec": {"availabilityZone": "us-east-2a"},
            "metrics": {
                "enabled": False,
                "metricsScrapeIntervalSeconds": 30,
                "modelMetrics": {"path": "/metrics", "port": 8000},
            },
        },
        {
            "modelSource": {"huggingFace": {"modelId": "org/model", "tokenConfigKey": "hf"}},
            "kvCache": {"enableL1Cache": False, "l2CacheBackend": "tieredstorage"},
        },
        {
            "prefill": {"replicas": 3, "nodeSelector": {"pool": "prefill"}, "args": ["--x"]},
            "routingStrategy": "roundrobin",
        },
    ],
)
def test_every_variant_passes_the_operator_crd_schema(changes):
    assert schema_errors(manifest(**changes), "3.3") == []


@pytest.mark.parametrize(
    "metrics, expected",
    [
        ({}, {"enabled": True, "modelMetrics": {"port": 8000}}),
        (
            {"modelMetrics": {"path": "/metrics"}},
            {"enabled": True, "modelMetrics": {"path": "/metrics", "port": 8000}},
        ),
        ({"enabled": False}, {"enabled": False}),
    ],
)
def test_model_metrics_are_scraped_from_the_port_vllm_serves_on(metrics, expected):
    rendered = manifest(metrics=metrics)["spec"]
    assert rendered["metrics"] == expected
    if "modelMetrics" in expected:
        invocation_port = rendered["worker"]["modelInvocationPort"]["containerPort"]
        assert expected["modelMetrics"]["port"] == invocation_port


@pytest.mark.parametrize(
    ("zone_name", "written"), [(None, "usw2-az2"), ("us-west-2b", "us-west-2b")]
)
def test_the_topology_az_is_written_as_the_name_the_account_gives_it(zone_name, written):
    endpoint = spec(topologySpec={"availabilityZone": "usw2-az2"})
    built = build_manifest(endpoint, model_bucket="w", region="us-west-2", zone_name=zone_name)
    assert built["spec"]["pdSpec"]["topologySpec"] == {"sameAZ": True, "availabilityZone": written}


def test_a_custom_acm_certificate_is_written_as_the_crd_names_it():
    certificate = {
        "acmArn": "arn:aws:acm:us-east-2:123456789012:certificate/0a1b2c3d-aaaa-bbbb",
        "domainName": "chat.example.com",
    }
    built = manifest(tlsConfig={"customCertificateConfig": certificate})
    assert built["spec"]["tlsConfig"] == {"customCertificateConfig": certificate}
    assert schema_errors(built, "3.2") == []


def test_an_endpoint_az_is_written_as_the_name_node_labels_carry():
    # The stack hands the builder the account's name for the AZ ID (components/network/zones.py).
    built = manifest(topologySpec={"availabilityZone": "usw2-az2"})
    assert build_manifest(
        spec(topologySpec={"availabilityZone": "usw2-az2"}),
        model_bucket="weights",
        region="us-west-2",
        zone_name="us-west-2b",
    )["spec"]["pdSpec"]["topologySpec"] == {"sameAZ": True, "availabilityZone": "us-west-2b"}
    assert built["spec"]["pdSpec"]["topologySpec"]["availabilityZone"] == "usw2-az2"


# The model's metrics are scraped from the port vLLM serves on.


def test_a_metrics_port_other_than_the_worker_port_is_refused():
    (finding,) = check_metrics_port(spec(metrics={"modelMetrics": {"port": 8080}}).metrics, 8000)
    assert (finding.code, finding.level, finding.field) == (
        "metrics-port",
        "error",
        "metrics.modelMetrics.port",
    )


def test_the_worker_port_as_metrics_port_passes():
    metrics = spec(metrics={"modelMetrics": {"port": 8000, "path": "/metrics"}}).metrics
    assert check_metrics_port(metrics, 8000) == []


def test_a_model_server_on_another_port_is_served_scraped_and_routed_there():
    built = manifest(modelInvocationPort={"containerPort": 8080})["spec"]
    assert built["worker"]["modelInvocationPort"] == {"name": "http", "containerPort": 8080}
    args = built["worker"]["args"]
    assert args[args.index("--port") + 1] == "8080"
    assert built["metrics"]["modelMetrics"]["port"] == 8080
    endpoint = spec(
        modelInvocationPort={"containerPort": 8080}, metrics={"modelMetrics": {"port": 8000}}
    )
    (finding,) = check_metrics_port(endpoint.metrics, endpoint.model_invocation_port.container_port)
    assert "modelInvocationPort.containerPort" in finding.message


# The fields the settings own (DPD_FIELDS): specOverrides may add only what lies outside them.

ROLE = {
    "replicas": 2,
    "gpus": 4,
    "maxNumSeqs": 24,
    "gpuMemoryUtilization": 0.7,
    "args": ["--enforce-eager"],
    "nodeSelector": {"tier": "a"},
    "autoscaling": {
        "minReplicas": 1,
        "maxReplicas": 4,
        "metric": "query",
        "target": 8,
        "query": "sum(vllm:num_requests_running)",
        "metricType": "Value",
        "serverAddress": "https://aps-workspaces.us-east-2.amazonaws.com/workspaces/ws-1",
        "pollingInterval": 15,
        "cooldownPeriod": 300,
        "initialCooldownPeriod": 60,
        "scaleUpStabilizationTime": 0,
        "scaleDownStabilizationTime": 300,
    },
}
# Every setting an endpoint has, set; one spec per model source.
EVERY_OPTION = {
    **MINIMAL,
    "namespace": "serving",
    "adopted": False,
    "rollout": "keepName",
    "drainSeconds": 60,
    "endpointName": "chat-endpoint",
    "engine": "vllm",
    "image": "lmcache/vllm-openai:v0.4.3",
    "tensorParallelSize": 4,
    "gpuMemoryUtilization": 0.8,
    "prefill": ROLE,
    "decode": ROLE,
    "routingThreshold": 2048,
    "routingStrategy": "kvaware",
    "routingEnabled": True,
    "pdBufferSize": "16GiB",
    "kvCache": {
        "enableL1Cache": True,
        "enableL2Cache": True,
        "l2CacheBackend": "redis",
        "l2CacheLocalUrl": "redis://cache:6379",
    },
    "healthCheckPath": "/health",
    "invocationEndpoint": "v1/chat/completions",
    "metrics": {
        "enabled": True,
        "metricsScrapeIntervalSeconds": 30,
        "modelMetrics": {"path": "/metrics", "port": 8080},
    },
    "topologySpec": {"sameAZ": True, "availabilityZone": "usw2-az2", "placementGroup": "pg"},
    "tlsConfig": {
        "customCertificateConfig": {
            "acmArn": "arn:aws:acm:us-east-2:123456789012:certificate/0a1b2c3d",
            "domainName": "chat.example.com",
        },
        "tlsCertificateOutputS3Uri": "s3://hyperpod-tls-chat/certs",
    },
    "tags": {"team": "ml"},
    "environmentVariables": {"NCCL_DEBUG": "INFO"},
    "environmentFrom": {"HF_TOKEN": {"secretKeyRef": {"name": "hf", "key": "token"}}},
    "workerArgs": ["--enable-prefix-caching"],
    "workerResources": {"requests": {"cpu": "8", "memory": "64Gi"}, "limits": {"memory": "96Gi"}},
    "modelInvocationPort": {"containerPort": 8080, "name": "http"},
    "probes": {
        "readinessProbe": {"httpGet": {"path": "/health", "port": 8080}, "periodSeconds": 10},
        "livenessProbe": {"tcpSocket": {"port": "http"}},
        "startupProbe": {"httpGet": {"path": "/health", "port": 8080}, "failureThreshold": 90},
    },
    "requestLimits": {"maxConcurrentRequests": 64, "maxQueueSize": 128, "overflowStatusCode": 503},
    "workingDir": "/opt/ml",
    "command": ["python3", "-m", "vllm.entrypoints.openai.api_server"],
    "modelVolumeMount": {"name": "weights"},
    "instanceTypes": ["ml.p5.48xlarge", "ml.p5en.48xlarge"],
    "loadBalancer": {"routingAlgorithm": "round_robin", "idleTimeoutSeconds": 600},
    "kubernetes": {
        "serviceAccountName": "llm",
        "schedulerName": "default-scheduler",
        "initContainers": [{"name": "warm", "image": "busybox:1.36", "command": ["true"]}],
        "volumes": [{"name": "scratch", "emptyDir": {}}],
    },
    "modelCacheConfig": {
        "weightsCache": {"enabled": True, "hostPath": "/opt/dlami/nvme"},
        "imageCache": {"enabled": True},
    },
    "specOverrides": {},
    "architecture": "llama-3.3-70b",
    "workload": {
        "typicalInputTokens": 6000,
        "outputTokens": 512,
        "requestsPerSecond": 4,
        "concurrency": 32,
        "lengthSpread": 0.2,
        "slo": {"ttftMs": 800, "tpotMs": 40, "percentile": 99},
    },
}
SOURCES = [
    {
        "s3": {"prefix": "llama", "bucket": "weights", "region": "us-east-2"},
        "prefetchEnabled": True,
    },
    {
        "fsx": {
            "fileSystemId": "fs-0123456789abcdef0",
            "dnsName": "fs-0123456789abcdef0.fsx.us-east-2.amazonaws.com",
            "mountName": "abcd",
            "path": "/models/llama",
        }
    },
    {"huggingFace": {"modelId": "org/model", "commitSHA": "a" * 40, "tokenConfigKey": "hf"}},
    {"huggingFace": {"modelId": "org/model", "tokenSecretRef": {"name": "hf", "key": "tok"}}},
    {"kubernetesVolume": {"path": "/mnt/models/llama"}},
]
# The same, aggregated: a serving role in place of the DPD settings (a role's nodeSelector has
# no field without pdSpec).
EVERY_AGGREGATED_OPTION = {
    **{key: value for key, value in EVERY_OPTION.items() if key not in DPD_ONLY_KEYS},
    # As an adopted endpoint's may be: GPUs in limits alone.
    "workerResources": {
        "requests": {"cpu": "8", "memory": "64Gi"},
        "limits": {"memory": "96Gi", "nvidia.com/gpu": "8"},
        "asWritten": True,
    },
    "serving": {key: value for key, value in ROLE.items() if key != "nodeSelector"},
    "instanceTypes": None,
    "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [
                {
                    "matchExpressions": [
                        {
                            "key": "node.kubernetes.io/instance-type",
                            "operator": "In",
                            "values": ["ml.p5.48xlarge"],
                        }
                    ]
                }
            ]
        }
    },
}
EVERY_SPEC = [spec(**{**EVERY_OPTION, "modelSource": source}) for source in SOURCES] + [
    spec(**EVERY_AGGREGATED_OPTION)
]
SOURCE_IDS = ["s3", "fsx", "hf-key", "hf-secret", "volume"]
SPEC_IDS = [*SOURCE_IDS, "aggregated"]


def _unset(model: BaseModel, path: str = "") -> set[str]:
    """The settings of `model` and of the models inside it that are left unset."""
    found = {
        f"{path}{name}" for name in type(model).model_fields if name not in model.model_fields_set
    }
    for name in model.model_fields_set:
        value = getattr(model, name)
        inner = value.values() if isinstance(value, dict) else [value]
        for item in inner:
            if isinstance(item, BaseModel):
                found |= _unset(item, f"{path}{name}.")
    return found


def test_the_specs_below_set_every_setting_an_endpoint_has():
    unset = set.intersection(*(_unset(endpoint) for endpoint in EVERY_SPEC))
    assert unset == set(), (
        f"set these in EVERY_OPTION or SOURCES, so the next test sees them: {unset}"
    )


@pytest.mark.parametrize("endpoint", EVERY_SPEC, ids=SPEC_IDS)
def test_every_field_the_builder_writes_is_owned_by_a_setting(endpoint):
    built = build_manifest(
        endpoint,
        model_bucket="weights",
        region="us-east-2",
        prometheus_address="https://aps-workspaces.us-east-2.amazonaws.com/workspaces/ws-1",
        zone_name="us-east-2a",
    )
    owners = field_owners(endpoint)
    unowned = [path for path in leaf_paths(built["spec"]) if owned_field(path, owners) is None]
    table = "AGGREGATED_FIELDS" if endpoint.aggregated else "DPD_FIELDS"
    assert unowned == [], f"add these to {table} in components/endpoint/overrides.py: {unowned}"


# An aggregated endpoint: a serving block in place of prefill and decode.

SERVING = {"replicas": 2, "gpus": 8}


@pytest.mark.parametrize(
    "instance_type, gpus", [("ml.p5.48xlarge", 8), ("ml.g6e.12xlarge", 4), ("ml.g5.12xlarge", 4)]
)
@pytest.mark.parametrize("operator", ["3.2", "3.3"])
def test_an_aggregated_endpoint_is_a_valid_manifest_without_pdspec(instance_type, gpus, operator):
    built = manifest(
        instanceType=instance_type, tensorParallelSize=gpus, serving={"replicas": 3, "gpus": gpus}
    )
    assert schema_errors(built, operator) == []
    body = built["spec"]
    assert "pdSpec" not in body
    assert body["replicas"] == 3
    assert body["instanceType"] == instance_type
    gpu = {"nvidia.com/gpu": str(gpus)}
    assert body["worker"]["resources"]["requests"].items() >= gpu.items()
    assert body["worker"]["resources"]["limits"].items() >= gpu.items()


# One GPU a node, as the public manifests' ml.g5.8xlarge endpoints have; ml.g6e.xlarge has no
# EFA either, nor the CPU and memory those manifests request (its pods request their share).
@pytest.mark.parametrize("instance_type", ["ml.g5.8xlarge", "ml.g6e.xlarge"])
def test_an_aggregated_endpoint_on_a_one_gpu_type_passes_and_writes_one_gpu(instance_type):
    endpoint = {
        **{key: value for key, value in dev_endpoint().items() if key not in DPD_ONLY_KEYS},
        "modelName": "Llama-3.1-8B-Instruct",
        "instanceType": instance_type,
        "tensorParallelSize": 1,
        "serving": {"replicas": 2, "gpus": 1},
    }
    assert endpoint_problems(endpoint) == []
    built = build_manifest(
        EndpointSpec.model_validate(endpoint), model_bucket="weights", region="us-west-2"
    )
    assert all(schema_errors(built, operator) == [] for operator in ("3.2", "3.3"))
    body = built["spec"]
    assert "pdSpec" not in body
    assert (body["instanceType"], body["replicas"]) == (instance_type, 2)
    assert body["worker"]["resources"]["limits"]["nvidia.com/gpu"] == "1"
    args = body["worker"]["args"]
    assert args[args.index("--tensor-parallel-size") + 1] == "1"


def test_an_aggregated_endpoint_writes_no_dpd_variables_routing_or_kv_cache_unless_set():
    built = manifest(serving=SERVING, environmentVariables={"NCCL_DEBUG": "INFO"})["spec"]
    assert built["worker"]["environmentVariables"] == [{"name": "NCCL_DEBUG", "value": "INFO"}]
    assert "intelligentRoutingSpec" not in built
    assert "kvCacheSpec" not in built
    chosen = manifest(serving=SERVING, routingStrategy="roundrobin", kvCache={})["spec"]
    assert chosen["intelligentRoutingSpec"] == {"enabled": True, "routingStrategy": "roundrobin"}
    assert chosen["kvCacheSpec"] == {"enableL1Cache": True}


def test_routing_and_the_l2_cache_can_be_written_switched_off_as_aws_samples_do():
    built = manifest(
        serving=SERVING,
        routingEnabled=False,
        routingStrategy="prefixaware",
        kvCache={"enableL2Cache": False, "l2CacheBackend": "redis", "l2CacheLocalUrl": "redis://r"},
    )
    assert schema_errors(built, "3.3") == []
    body = built["spec"]
    assert body["intelligentRoutingSpec"] == {"enabled": False, "routingStrategy": "prefixaware"}
    assert body["kvCacheSpec"] == {
        "enableL1Cache": True,
        "enableL2Cache": False,
        "l2CacheSpec": {"l2CacheBackend": "redis", "l2CacheLocalUrl": "redis://r"},
    }


def test_a_variable_kubernetes_fills_is_written_with_its_value_from():
    source = {"secretKeyRef": {"name": "hf", "key": "token"}}
    built = manifest(environmentFrom={"HF_TOKEN": source})
    assert {"name": "HF_TOKEN", "valueFrom": source} in built["spec"]["worker"][
        "environmentVariables"
    ]
    assert schema_errors(built, "3.2") == [] and schema_errors(built, "3.3") == []


def test_without_max_model_len_vllm_is_left_its_own_context_length():
    unset = {k: v for k, v in MINIMAL.items() if k != "maxModelLen"}
    built = build_manifest(EndpointSpec.model_validate(unset), model_bucket="w", region="us-east-2")
    assert "--max-model-len" not in built["spec"]["worker"]["args"]


def test_a_dpd_endpoint_keeps_routing_and_the_kv_cache_on_as_before():
    built = manifest()["spec"]
    assert built["intelligentRoutingSpec"] == {"enabled": True, "routingStrategy": "prefixaware"}
    assert built["kvCacheSpec"] == {"enableL1Cache": True}


def test_the_serving_role_writes_its_flags_into_the_worker_and_scales_at_the_top_level():
    serving = {
        **SERVING,
        "maxNumSeqs": 64,
        "gpuMemoryUtilization": 0.9,
        "args": ["--enable-prefix-caching"],
        "autoscaling": {"minReplicas": 1, "maxReplicas": 4},
    }
    built = build_manifest(
        spec(serving=serving),
        model_bucket="weights",
        region="us-east-2",
        prometheus_address="https://aps-workspaces.us-east-2.amazonaws.com/workspaces/ws-1",
        digest="0a1b2",
    )
    body = built["spec"]
    args = body["worker"]["args"]
    assert args[args.index("--max-num-seqs") + 1] == "64"
    assert args[args.index("--gpu-memory-utilization") + 1] == "0.9"
    assert "--enable-prefix-caching" in args
    scaling = body["autoScalingSpec"]
    assert (scaling["minReplicaCount"], scaling["maxReplicaCount"]) == (1, 4)
    trigger = scaling["prometheusTrigger"]
    # The running requests of the endpoint object's pods, three quarters of --max-num-seqs each.
    assert trigger["query"] == (
        'sum(vllm:num_requests_running{namespace="default",resource_name="chat"})'
    )
    assert trigger["targetValue"] == 48
    assert schema_errors(built, "3.3") == []


def test_scaling_or_resizing_an_aggregated_endpoint_is_no_new_generation():
    from components.endpoint.manifest import endpoint_generation

    def generation_of(serving):
        return endpoint_generation(spec(serving=serving), model_bucket="w", region="us-east-2")

    base = generation_of(SERVING)
    assert generation_of({**SERVING, "replicas": 5}) == base
    assert generation_of({**SERVING, "autoscaling": {"maxReplicas": 4}}) == base
    assert generation_of({**SERVING, "gpus": 4}) == base  # its one Deployment rolls
    # Going from DPD to aggregated is a new generation: the operator cannot drop pdSpec in place.
    assert endpoint_generation(spec(), model_bucket="w", region="us-east-2") != base


def test_an_adopted_endpoint_has_no_generation_in_its_names():
    adopted = spec(adopted=True, endpointName="chat-sm", rollout="keepName")
    built = build_manifest(adopted, model_bucket="w", region="us-east-2", digest="0a1b2")
    assert built["metadata"]["name"] == "chat"
    assert built["spec"]["endpointName"] == "chat-sm"
    generational = build_manifest(
        spec(endpointName="chat-sm", rollout="newName"),
        model_bucket="w",
        region="us-east-2",
        digest="0a1b2",
    )
    assert generational["metadata"]["name"] == "chat-g0a1b2"
    assert generational["spec"]["endpointName"] == "chat-sm-g0a1b2"


# What the worker container requests and where the weights come from.


def test_cpu_and_memory_requests_without_limits_leave_the_limits_to_the_gpus():
    built = manifest(workerResources={"requests": {"cpu": 6, "memory": "30Gi"}})["spec"]
    assert built["worker"]["resources"] == {
        "requests": {"cpu": "6", "memory": "30Gi", "nvidia.com/gpu": "8"},
        "limits": {"nvidia.com/gpu": "8"},
    }
    assert schema_errors(build_manifest(spec(), model_bucket="w", region="r"), "3.2") == []


def test_one_resources_map_is_both_the_requests_and_the_limits():
    resources = manifest(workerResources={"cpu": "32", "memory": "256Gi"})["spec"]["worker"]
    assert (
        resources["resources"]["requests"]
        == resources["resources"]["limits"]
        == {
            "cpu": "32",
            "memory": "256Gi",
            "nvidia.com/gpu": "8",
        }
    )


def test_the_default_worker_resources_are_unchanged():
    assert manifest()["spec"]["worker"]["resources"] == {
        "requests": {"cpu": "96", "memory": "1024Gi", "nvidia.com/gpu": "8"},
        "limits": {"cpu": "96", "memory": "1024Gi", "nvidia.com/gpu": "8"},
    }


def test_an_s3_source_without_a_prefix_reads_the_whole_bucket():
    source = manifest(modelSource={"s3": {"bucket": "llama-weights"}})["spec"]["modelSourceConfig"]
    assert source == {
        "modelSourceType": "s3",
        "s3Storage": {"bucketName": "llama-weights", "region": "us-east-2"},
    }


@pytest.mark.parametrize("prefetch", [True, False])
def test_prefetch_is_written_as_set_and_left_out_unset(prefetch):
    source = {"s3": {"prefix": "llama"}, "prefetchEnabled": prefetch}
    assert manifest(modelSource=source)["spec"]["modelSourceConfig"]["prefetchEnabled"] is prefetch
    assert "prefetchEnabled" not in manifest()["spec"]["modelSourceConfig"]


# What operator 3.3's CRD added: the 3.2 one refuses it, and so does the program on a 3.2 stack.
OPERATOR_33_SETTINGS = [
    ("modelCacheConfig", EVERY_OPTION["modelCacheConfig"], "'modelCacheConfig' was unexpected"),
    ("loadBalancer", {"idleTimeoutSeconds": 600}, "'idleTimeoutSeconds' was unexpected"),
]


@pytest.mark.parametrize("endpoint", EVERY_SPEC, ids=SPEC_IDS)
def test_every_setting_set_passes_both_operator_schemas(endpoint):
    built = build_manifest(endpoint, model_bucket="weights", region="us-east-2")
    assert schema_errors(built, "3.3") == []
    on_32 = endpoint.model_copy(
        update={
            "model_cache_config": None,
            "load_balancer": endpoint.load_balancer.model_copy(
                update={"idle_timeout_seconds": None}
            ),
        }
    )
    assert (
        schema_errors(build_manifest(on_32, model_bucket="weights", region="us-east-2"), "3.2")
        == []
    )


@pytest.mark.parametrize("key, value, field", OPERATOR_33_SETTINGS)
def test_a_setting_of_operator_33_is_refused_by_the_32_schema_naming_the_field(key, value, field):
    built = manifest(**{key: value})
    assert schema_errors(built, "3.3") == []
    assert any(field in message for _, message in schema_errors(built, "3.2"))


WORKER_REFUSED = [
    (
        {"workerResources": {"requests": {"nvidia.com/gpu": "8"}}},
        "workerResources.requests",
        "written from the roles' gpus",
    ),
    (
        {"workerResources": {"requests": {"cpu": "8"}, "limits": {"cpu": "4"}}},
        "workerResources",
        "the cpu request 8 is above its limit 4",
    ),
    (
        {"workerResources": {"requests": {"vpc.amazonaws.com/efa": "32"}}},
        "workerResources",
        "vpc.amazonaws.com/efa is an extended resource",
    ),
    (
        {"modelInvocationPort": {"containerPort": 70000}},
        "modelInvocationPort.containerPort",
        "65535",
    ),
    (
        {"workerArgs": ["--port", "9000"]},
        "workerArgs",
        "modelInvocationPort.containerPort",
    ),
]


@pytest.mark.parametrize("changes, key, says", WORKER_REFUSED)
def test_worker_settings_kubernetes_would_refuse_are_refused_naming_the_key(changes, key, says):
    assert says in endpoint_problem(changes, key)


def test_the_load_balancer_settings_join_the_health_check_path():
    built = manifest(healthCheckPath="/health", loadBalancer={"idleTimeoutSeconds": 600})
    assert built["spec"]["loadBalancer"] == {
        "healthCheckPath": "/health",
        "idleTimeoutSeconds": 600,
    }


def test_request_limits_and_the_working_dir_are_written_on_the_worker():
    worker = manifest(requestLimits={"maxConcurrentRequests": 32}, workingDir="/opt/ml")["spec"][
        "worker"
    ]
    assert (worker["requestLimits"], worker["workingDir"]) == (
        {"maxConcurrentRequests": 32},
        "/opt/ml",
    )


def test_weights_on_a_volume_of_the_pod():
    source = manifest(modelSource={"kubernetesVolume": {"path": "/mnt/models/llama"}})
    assert source["spec"]["modelSourceConfig"] == {
        "modelSourceType": "kubernetesVolume",
        "modelLocation": "/mnt/models/llama",
    }


def test_the_routers_own_autoscaling_is_left_to_overrides():
    overrides = {"intelligentRoutingSpec": {"autoScalingSpec": {"maxReplicaCount": 3}}}
    routing = manifest(specOverrides=overrides)["spec"]["intelligentRoutingSpec"]
    assert routing == {
        "enabled": True,
        "routingStrategy": "prefixaware",
        "autoScalingSpec": {"maxReplicaCount": 3},
    }


def test_a_colocated_pod_runs_vllms_own_memory_share_unless_set():
    args = manifest(serving=SERVING)["spec"]["worker"]["args"]
    assert "--gpu-memory-utilization" not in args
    assert spec(serving=SERVING).gpu_memory_utilization == 0.9  # what sizing reads: vLLM's
    set_args = manifest(serving=SERVING, gpuMemoryUtilization=0.8)["spec"]["worker"]["args"]
    assert set_args[set_args.index("--gpu-memory-utilization") + 1] == "0.8"
    dpd = manifest()["spec"]["worker"]["args"]
    assert dpd[dpd.index("--gpu-memory-utilization") + 1] == "0.75"


def test_a_colocated_pod_runs_tensor_parallel_over_all_of_its_gpus_unless_set():
    assert spec(serving={"gpus": 4}).tensor_parallel_size == 4
    assert spec(serving={"gpus": 4}, tensorParallelSize=2).tensor_parallel_size == 2
    assert spec().tensor_parallel_size == 8


def test_a_colocated_pod_requests_cpu_and_memory_and_limits_only_its_gpus():
    resources = manifest(serving=SERVING)["spec"]["worker"]["resources"]
    assert set(resources["requests"]) == {"cpu", "memory", "nvidia.com/gpu"}
    assert resources["limits"] == {"nvidia.com/gpu": str(SERVING["gpus"])}


@pytest.mark.parametrize(
    "shared",
    [
        {"kvCache": {"l2CacheBackend": "redis", "l2CacheLocalUrl": "redis://r:6379"}},
        {"kvCache": {"l2CacheBackend": "tieredstorage"}},
        {"routingStrategy": "kvaware", "invocationEndpoint": "v1/chat/completions"},
    ],
)
def test_colocated_pods_that_share_cache_keys_pin_the_hash_seed(shared):
    many = {**SERVING, "replicas": 2}
    assert env_of(spec(serving=many, **shared))["PYTHONHASHSEED"] == "0"
    assert "PYTHONHASHSEED" not in env_of(spec(serving={**SERVING, "replicas": 1}, **shared))
    scaled = {**SERVING, "autoscaling": {"maxReplicas": 3}}
    assert "PYTHONHASHSEED" in env_of(spec(serving=scaled, **shared))
    # The user's own seed is kept, once.
    own = environment(spec(serving=many, environmentVariables={"PYTHONHASHSEED": "123"}, **shared))
    assert [e for e in own if e["name"] == "PYTHONHASHSEED"] == [
        {"name": "PYTHONHASHSEED", "value": "123"}
    ]


def test_colocated_pods_that_share_no_cache_keys_get_no_hash_seed():
    many = {**SERVING, "replicas": 2}
    for alone in ({"routingStrategy": "prefixaware"}, {"kvCache": {}}, {}):
        assert "PYTHONHASHSEED" not in env_of(spec(serving=many, **alone))


ADOPTED = {
    "adopted": True,
    "serving": {"gpus": 1},
    "instanceType": "ml.g5.12xlarge",
    "workerArgs": ["/opt/ml/model", "--tensor_parallel_size", "1", "--max-model-len", "16k"],
    "environmentVariables": {"PYTHONHASHSEED": "123", "VLLM_REQUEST_TIMEOUT": "600"},
}


def test_an_adopted_endpoint_writes_its_command_line_and_variables_as_they_run():
    adopted = {k: v for k, v in {**MINIMAL, **ADOPTED}.items() if k != "maxModelLen"}
    endpoint = EndpointSpec.model_validate(adopted)
    built = build_manifest(endpoint, model_bucket="w", region="us-east-2", digest="0a1b2")["spec"]
    assert built["worker"]["args"] == ADOPTED["workerArgs"]
    assert built["worker"]["environmentVariables"] == [
        {"name": "PYTHONHASHSEED", "value": "123"},
        {"name": "VLLM_REQUEST_TIMEOUT", "value": "600"},
    ]
    # Nothing it does not set: no metrics, replicas, or routing strategy of the stack's.
    assert {"metrics", "replicas", "intelligentRoutingSpec"}.isdisjoint(built)
    # What the settings read from them, as vLLM reads the flags.
    assert (endpoint.tensor_parallel_size, endpoint.max_model_len) == (1, 16000)
    assert endpoint.gpu_memory_utilization == 0.9


def test_an_adopted_setting_that_says_otherwise_than_its_pods_is_refused_naming_it():
    adopted = {**MINIMAL, **ADOPTED, "tensorParallelSize": 4}
    found = check_endpoint(EndpointSpec.model_validate(adopted))
    problems = {f.field for f in found if f.code == "adopted-setting-differs"}
    # maxModelLen 16384 of MINIMAL, and 16k on the command line.
    assert problems == {"tensorParallelSize", "maxModelLen"}


def test_an_adopted_engine_that_no_source_says_how_it_runs_unset_is_taken_as_it_runs():
    # DJL LMI on four GPUs, with no tensor parallel degree in its variables.
    lmi = {**MINIMAL, **ADOPTED, "engine": "lmi", "serving": {"gpus": 4}, "workerArgs": []}

    def differs(item: dict) -> set[str]:
        found = check_endpoint(EndpointSpec.model_validate(item))
        return {f.field for f in found if f.code == "adopted-setting-differs"}

    assert differs(lmi) == set()
    assert differs({**lmi, "tensorParallelSize": 2}) == {"tensorParallelSize"}


def test_pods_placed_by_a_preference_list_are_sized_for_its_first_type_and_the_list_written():
    listed = {k: v for k, v in MINIMAL.items() if k != "instanceType"}
    endpoint = EndpointSpec.model_validate(
        {**listed, "serving": SERVING, "instanceTypes": ["ml.g6e.48xlarge", "ml.p4d.24xlarge"]}
    )
    assert endpoint.instance_type == "ml.g6e.48xlarge"
    built = build_manifest(endpoint, model_bucket="w", region="us-east-2")["spec"]
    assert "instanceType" not in built
    assert built["instanceTypes"] == ["ml.g6e.48xlarge", "ml.p4d.24xlarge"]


def test_an_empty_node_affinity_places_the_pods_anywhere_and_is_not_written():
    built = manifest(serving=SERVING, nodeAffinity={})["spec"]
    assert {"nodeAffinity", "instanceType", "instanceTypes"}.isdisjoint(built)


def test_only_dpd_is_held_to_the_images_documented_for_dpd():
    image = {"image": "lmcache/vllm-openai:latest"}
    assert "unknown-image" in {f.code for f in check_endpoint(spec(**image))}
    assert "unknown-image" not in {f.code for f in check_endpoint(spec(serving=SERVING, **image))}
