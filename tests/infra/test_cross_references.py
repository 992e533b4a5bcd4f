"""Every value that names something elsewhere must resolve, and every name the program derives
must be one AWS and Kubernetes accept: refused by `render` with exit 2, the key and the value
named, no traceback, nothing written."""

from collections.abc import Callable
from typing import Any

import pytest

from components.cluster.spec import tiered_storage
from tests.support import (
    config_file,
    dev_config,
    dev_endpoint,
    endpoint_configs,
    one,
    problem_for,
    problems,
    render,
    settings_of,
    with_endpoints,
)
from tools.cli import main

Config = dict[str, Any]


def endpoint_with(**changes: Any) -> Config:
    return with_endpoints({**dev_endpoint(), **changes})


def cluster_with(**changes: Any) -> Config:
    config = dev_config()
    config["hyperpod-dpd:cluster"].update(changes)
    return config


def two_endpoints_named(endpoint_name: str) -> Config:
    second = {**dev_endpoint(), "name": "dpd-second", "endpointName": endpoint_name}
    return with_endpoints(dev_endpoint(), second, gpu_nodes=4)


def hugging_face(**source: Any) -> Config:
    model = {"modelId": "meta-llama/Llama-3.3-70B-Instruct", **source}
    return endpoint_with(modelSource={"huggingFace": model})


def group_labels(labels: dict[str, str]) -> Config:
    config = dev_config()
    config["hyperpod-dpd:cluster"]["instanceGroups"][0]["labels"] = labels
    return config


def network_with(**changes: Any) -> Config:
    config = dev_config()
    config["hyperpod-dpd:network"].update(changes)
    return config


def existing_cluster(eks_name: str) -> Config:
    config = dev_config()
    del config["hyperpod-dpd:network"]
    config["hyperpod-dpd:cluster"] = {
        "existing": {
            "eksClusterName": eks_name,
            "hyperpodClusterArn": "arn:aws:sagemaker:us-west-2:123456789012:cluster/abc123",
        }
    }
    return config


E0 = "hyperpod-dpd:endpoints[0]"
CASES: dict[str, tuple[Callable[[], Config], str]] = {
    "two endpoints share one endpointName": (
        lambda: two_endpoints_named("dpd-test"),
        "hyperpod-dpd:endpoints[1].endpointName: 'dpd-test' is already the endpointName of "
        "endpoints[0]; each SageMaker endpoint needs a name of its own",
    ),
    "tokenConfigKey names one of the program's keys": (
        lambda: hugging_face(tokenConfigKey="cluster"),
        f"{E0}.modelSource.huggingFace.tokenConfigKey: 'cluster' is one of this program's own "
        "settings (endpoints, network, cluster, buckets, operator, observability); name a key "
        "of its own for the token, e.g. hfToken",
    ),
    "an L2 cache URL without a backend": (
        lambda: endpoint_with(kvCache={"l2CacheLocalUrl": "redis://redis.cache:6379"}),
        f"{E0}.kvCache.l2CacheLocalUrl: 'redis://redis.cache:6379' names a cache but "
        "l2CacheBackend is not set; set l2CacheBackend: redis to use it",
    ),
    "an L2 cache URL that is not a URL": (
        lambda: endpoint_with(
            kvCache={"l2CacheBackend": "redis", "l2CacheLocalUrl": "redis.cache:6379"}
        ),
        f"{E0}.kvCache.l2CacheLocalUrl: 'redis.cache:6379' is not allowed; must be a URL with "
        "a scheme and a host, e.g. redis://redis:6379",
    ),
    "tieredstorage while the cluster disables tiered storage": (
        lambda: with_endpoints(
            {**dev_endpoint(), "kvCache": {"l2CacheBackend": "tieredstorage"}},
            **{
                "hyperpod-dpd:cluster": {
                    **cluster_with()["hyperpod-dpd:cluster"],
                    "tieredStorage": False,
                }
            },
        ),
        f"{E0}.kvCache.l2CacheBackend: 'tieredstorage' needs the HyperPod cluster's tiered "
        "storage, which cluster.tieredStorage false disables; unset it (it then follows the "
        "endpoints) or set it true",
    ),
    "an S3 model region that is not a region": (
        lambda: endpoint_with(modelSource={"s3": {"prefix": "llama", "region": "us-west-9"}}),
        f"{E0}.modelSource.s3.region: 'us-west-9' is not allowed; must be an AWS region: ",
    ),
    "an environment variable name Kubernetes refuses": (
        lambda: endpoint_with(environmentVariables={"HF HOME": "/tmp"}),
        f"{E0}.environmentVariables.HF HOME: 'HF HOME' is not an environment variable name "
        "Kubernetes accepts; it must start with a letter, '_', '-' or '.', followed by letters, "
        "digits, '_', '-' or '.'",
    ),
    "a node-selector key Kubernetes refuses": (
        lambda: endpoint_with(prefill={"nodeSelector": {"team/a/b": "ml"}}),
        f"{E0}.prefill.nodeSelector.team/a/b: 'team/a/b' is not a label key Kubernetes "
        "accepts: its prefix (before the /) must be a lowercase DNS subdomain of at most 253 "
        "characters, e.g. example.com",
    ),
    "a node-selector value Kubernetes refuses": (
        lambda: endpoint_with(decode={"nodeSelector": {"team": "ml platform"}}),
        f"{E0}.decode.nodeSelector.team: 'ml platform' is not a label value Kubernetes "
        "accepts: it must be empty or at most 63 characters",
    ),
    "an instance-group label key Kubernetes refuses": (
        lambda: group_labels({"-team": "ml"}),
        "hyperpod-dpd:cluster.instanceGroups[0].labels.-team: '-team' is not a label key "
        "Kubernetes accepts: its name must be at most 63 characters",
    ),
    "a node selector that no instance group of the type carries": (
        lambda: endpoint_with(prefill={"nodeSelector": {"team": "ml"}}),
        f"{E0}.prefill.nodeSelector.team: team=ml is on no instance group of ml.p5.48xlarge, so "
        "its pods would never schedule; their labels: none (set it in a group's labels)",
    ),
    "a VPC CIDR larger than /16": (
        lambda: network_with(vpcCidr="10.0.0.0/12"),
        "hyperpod-dpd:network.vpcCidr: '10.0.0.0/12' is not allowed; must be a block from /16 "
        "to /28, the sizes AWS allows",
    ),
    "a subnet CIDR smaller than /28": (
        lambda: network_with(privateSubnetCidrs={"usw2-az2": "10.0.0.0/29"}),
        "hyperpod-dpd:network.privateSubnetCidrs.usw2-az2: '10.0.0.0/29' is not allowed; must "
        "be a block from /16 to /28",
    ),
    "a subnet too small for the nodes the instance groups put in its AZ": (
        lambda: network_with(privateSubnetCidrs={"usw2-az2": "10.0.0.0/25"}),
        "hyperpod-dpd:network.privateSubnetCidrs.usw2-az2: 10.0.0.0/25 holds 1 nodes",
    ),
    "bucket names derived from a cluster name S3 refuses": (
        lambda: cluster_with(name="Dpd"),
        "hyperpod-dpd:buckets.logs.name: the derived name 'Dpd-access-logs-000000000000' must "
        "be 3 to 63 lowercase letters, digits, '.' or '-', starting and ending with a letter or "
        "digit; set cluster.name to a short lowercase name, or set this bucket's name",
    ),
    "a bucket name with a prefix S3 reserves": (
        lambda: cluster_with(name="xn--dpd"),
        "hyperpod-dpd:buckets.logs.name: the derived name 'xn--dpd-access-logs-000000000000' "
        "must not start or end with what S3 reserves",
    ),
    "an existing EKS cluster name EKS refuses": (
        lambda: existing_cluster("_dpd"),
        "hyperpod-dpd:cluster.existing.eksClusterName: '_dpd' is not allowed; must be an EKS "
        "cluster name: 1 to 100 letters, digits, '-' or '_', starting with a letter or digit",
    ),
    "a vpc-cni add-on below the floor": (
        lambda: cluster_with(addonVersions={"vpcCni": "v1.18.2-eksbuild.1"}),
        "hyperpod-dpd:cluster.addonVersions.vpcCni: 'v1.18.2-eksbuild.1' is not allowed; must "
        "be v1.18.3 or later, the oldest HyperPod supports",
    ),
    "a routing threshold at maxModelLen": (
        lambda: endpoint_with(routingThreshold=16384),
        f"{E0}.routingThreshold: 16,384 is not allowed: no request can have 16,384 input "
        "tokens when maxModelLen is 16,384, so none would take the DPD path; set it below "
        "16,384 (0 sends every request through DPD)",
    ),
    "a decimal size unit": (
        lambda: endpoint_with(pdBufferSize="8GB"),
        f"{E0}.pdBufferSize: '8GB' would be 8 x 10^9 bytes, not 8 GiB; write 8GiB for "
        "8 x 2^30 bytes, or a byte count",
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_render_refuses_naming_key_and_value(tmp_path, capsys, case):
    build, expected = CASES[case]
    out = tmp_path / "out"
    assert main(["render", "--config-file", config_file(tmp_path, build()), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert any(line.startswith(expected) for line in err.splitlines()), err
    assert "Traceback" not in err
    assert not out.exists()


def test_a_tieredstorage_endpoint_enables_the_clusters_tiered_storage():
    config = endpoint_with(kvCache={"l2CacheBackend": "tieredstorage"})
    hyperpod = one(render(config), ":sagemaker:Cluster")
    assert hyperpod.inputs["tieredStorageConfig"] == {"mode": "Enable"}


# What each value writes on the HyperPod cluster: test_tiered_storage_is_written_as_set_or_....
def test_tiered_storage_stays_unset_when_no_endpoint_needs_it():
    stack = settings_of(dev_config()).stack
    assert (
        tiered_storage(stack.cluster, [e.kv_cache.l2_cache_backend for e in stack.endpoints])
        is None
    )


@pytest.mark.parametrize("setting", [True, False])
def test_tiered_storage_can_be_set_either_way(setting):
    cluster = settings_of(cluster_with(tieredStorage=setting)).stack.cluster
    assert tiered_storage(cluster, [None]) is setting


def test_a_node_selector_resolves_to_a_groups_label_or_a_label_nodes_carry():
    config = endpoint_with(
        prefill={"nodeSelector": {"team": "ml"}},
        decode={"nodeSelector": {"node.kubernetes.io/instance-type": "ml.p5.48xlarge"}},
    )
    config["hyperpod-dpd:cluster"]["instanceGroups"][0]["labels"] = {"team": "ml"}
    (endpoint,) = endpoint_configs(render(config))
    pd = endpoint["spec"]["pdSpec"]
    assert pd["prefillSpec"]["nodeSelector"] == {"team": "ml"}


def test_a_label_on_a_group_of_another_type_does_not_resolve():
    config = endpoint_with(prefill={"nodeSelector": {"team": "ml"}})
    config["hyperpod-dpd:cluster"]["instanceGroups"][1]["labels"] = {"team": "ml"}
    assert "their labels: none" in problem_for(f"{E0}.prefill.nodeSelector.team", problems(config))


def test_an_l2_cache_url_with_its_backend_and_a_binary_size_pass():
    config = endpoint_with(
        kvCache={"l2CacheBackend": "redis", "l2CacheLocalUrl": "redis://redis.cache:6379"},
        pdBufferSize="16GiB",
        routingThreshold=16383,
    )
    (endpoint,) = endpoint_configs(render(config))
    assert endpoint["spec"]["kvCacheSpec"]["l2CacheSpec"]["l2CacheLocalUrl"] == (
        "redis://redis.cache:6379"
    )
