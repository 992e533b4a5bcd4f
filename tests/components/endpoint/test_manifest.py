from typing import Any

import pytest

from components.endpoint.manifest import (
    build_manifest,
    environment,
    router_url,
)
from components.endpoint.schema import schema_errors
from components.endpoint.spec import DpdEndpointSpec
from components.endpoint.vllm_args import effective_args

MINIMAL = {
    "name": "chat",
    "modelName": "Llama-3.3-70B-Instruct",
    "modelSource": {"s3": {"prefix": "llama"}},
    "instanceType": "ml.p5.48xlarge",
    "maxModelLen": 16384,
}


def spec(**changes: Any) -> DpdEndpointSpec:
    return DpdEndpointSpec.model_validate({**MINIMAL, **changes})


def manifest(**changes: Any) -> dict:
    return build_manifest(spec(**changes), model_bucket="weights", region="us-east-2")


def env_of(endpoint: DpdEndpointSpec) -> dict[str, str]:
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
            "kubernetes": {"serviceAccountName": "llm"},
        }
    )
    assert built["spec"]["pdSpec"]["topologySpec"] == {"placementGroup": "pg"}
    assert built["spec"]["pdSpec"]["routingThreshold"] == 4096
    assert built["spec"]["kubernetes"] == {"serviceAccountName": "llm"}


def test_router_url_follows_the_operator_naming():
    assert router_url("dpd-test", "default") == (
        "http://dpd-test-default-routing-service.hyperpod-inference-system.svc.cluster.local:443"
    )


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
