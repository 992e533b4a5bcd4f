"""InferenceEndpoint registers the real Kubernetes objects, under mocks with preview=False."""

import pulumi
import pulumi_kubernetes as k8s
import pytest

from components.endpoint.generation import DPD_REPLACES
from components.endpoint.inference_endpoint import TYPE, InferenceEndpoint, InferenceEndpointArgs
from components.endpoint.manifest import build_manifest
from components.endpoint.spec import EndpointSpec
from tests.components.endpoint.test_manifest import MINIMAL
from tests.support import run_component

CONFIG_TYPE = "kubernetes:inference.sagemaker.aws.amazon.com/v1:InferenceEndpointConfig"
SLEEP = "time:index/sleep:Sleep"
HF_SOURCE = {"huggingFace": {"modelId": "org/model", "tokenConfigKey": "hfToken"}}


def endpoint(spec: EndpointSpec, **args) -> InferenceEndpoint:
    return InferenceEndpoint(
        "default/chat",
        InferenceEndpointArgs(spec=spec, region="us-east-2", generation="0a1b2", **args),
    )


def test_registers_the_built_manifest_of_its_generation_in_its_namespace():
    spec = EndpointSpec.model_validate(MINIMAL)
    result = run_component(lambda: endpoint(spec, model_bucket="weights"))
    (config,) = result.of_type(CONFIG_TYPE)
    expected = build_manifest(spec, model_bucket="weights", region="us-east-2", digest="0a1b2")
    assert config.inputs == expected
    assert config.inputs["metadata"]["name"] == "chat-g0a1b2"
    assert config.inputs["metadata"]["labels"] == {"hyperpod-dpd/endpoint": "chat"}
    assert config.parent == result.of_type(TYPE)[0].urn


def test_the_component_keeps_the_urns_of_stacks_deployed_before_the_rename():
    spec = EndpointSpec.model_validate(MINIMAL)
    (component,) = run_component(lambda: endpoint(spec)).of_type(TYPE)
    assert component.options["aliases"] == ["hyperpod-dpd:endpoint:DpdEndpoint"]


def test_pulumi_waits_until_the_operator_reports_the_generation_ready():
    result = run_component(lambda: endpoint(EndpointSpec.model_validate(MINIMAL), model_bucket="b"))
    (config,) = result.of_type(CONFIG_TYPE)
    assert config.inputs["metadata"]["annotations"] == {
        "pulumi.com/waitFor": "jsonpath={.status.conditions[?(@.message=='DPD prefill and decode "
        "deployments are ready')]}"
    }
    assert config.options["customTimeouts"] == {"create": "60m", "update": "60m", "delete": "30m"}


def test_a_new_generation_is_created_first_unless_the_cluster_cannot_hold_both():
    spec = EndpointSpec.model_validate(MINIMAL)
    (first,) = run_component(lambda: endpoint(spec, model_bucket="b")).of_type(CONFIG_TYPE)
    assert "deleteBeforeReplace" not in first.options
    (cramped,) = run_component(
        lambda: endpoint(spec, model_bucket="b", create_first=False)
    ).of_type(CONFIG_TYPE)
    assert cramped.options["deleteBeforeReplace"] is True


def test_the_stable_service_aliases_the_generations_router_once_it_serves():
    result = run_component(lambda: endpoint(EndpointSpec.model_validate(MINIMAL), model_bucket="b"))
    (service,) = result.of_type("kubernetes:core/v1:Service")
    (config,) = result.of_type(CONFIG_TYPE)
    assert service.inputs["metadata"] == {"name": "chat", "namespace": "default"}
    assert service.inputs["spec"]["type"] == "ExternalName"
    assert service.inputs["spec"]["externalName"] == (
        "chat-g0a1b2-default-routing-service.hyperpod-inference-system.svc.cluster.local"
    )
    # Moved only once the new generation is ready, before the old one is deleted.
    assert config.urn in service.dependencies


def test_the_model_bucket_may_be_an_output_of_another_resource():
    spec = EndpointSpec.model_validate(MINIMAL)
    result = run_component(lambda: endpoint(spec, model_bucket=pulumi.Output.from_input("late")))
    (config,) = result.of_type(CONFIG_TYPE)
    assert config.inputs["spec"]["modelSourceConfig"]["s3Storage"]["bucketName"] == "late"


def test_a_hugging_face_token_becomes_a_secret_the_endpoint_waits_for():
    spec = EndpointSpec.model_validate({**MINIMAL, "modelSource": HF_SOURCE})
    result = run_component(lambda: endpoint(spec, hf_token=pulumi.Output.secret("hf_abc")))
    (secret,) = result.of_type("kubernetes:core/v1:Secret")
    (config,) = result.of_type(CONFIG_TYPE)
    # One token for every generation.
    assert secret.inputs["metadata"] == {"name": "chat-hf-token", "namespace": "default"}
    assert secret.inputs["stringData"] == {"token": "[secret]"}
    assert secret.urn in config.dependencies
    ref = config.inputs["spec"]["modelSourceConfig"]["huggingFaceModel"]["tokenSecretRef"]
    assert ref == {"name": "chat-hf-token", "key": "token"}


def test_the_caller_dependencies_reach_every_child():
    spec = EndpointSpec.model_validate({**MINIMAL, "modelSource": HF_SOURCE})

    def build() -> None:
        operator = k8s.core.v1.Namespace("operator", metadata={"name": "ops"})
        InferenceEndpoint(
            "default/chat",
            InferenceEndpointArgs(spec=spec, region="r", generation="0a1b2", hf_token="t"),
            opts=pulumi.ResourceOptions(depends_on=[operator]),
        )

    result = run_component(build)
    (operator,) = result.of_type("kubernetes:core/v1:Namespace")
    for child in (*result.of_type(CONFIG_TYPE), *result.of_type("kubernetes:core/v1:Secret")):
        assert operator.urn in child.dependencies


def test_a_token_without_a_source_that_wants_one_is_a_programming_error():
    spec = EndpointSpec.model_validate(MINIMAL)
    with pytest.raises(ValueError, match="hf_token is needed exactly when"):
        run_component(lambda: endpoint(spec, model_bucket="b", hf_token="t"))


def test_outputs_name_the_stable_address_the_generation_and_the_effective_role_args():
    spec = EndpointSpec.model_validate({**MINIMAL, "decode": {"maxNumSeqs": 48}})

    def build() -> None:
        e = endpoint(spec, model_bucket="b")
        pulumi.export(
            "e",
            {
                "url": e.router_url,
                "roles": e.role_args,
                "name": e.endpoint_name,
                "object": e.object_name,
            },
        )

    exported = run_component(build).outputs["e"]
    # The stable address, whatever the generation.
    assert exported["url"] == "http://chat.default.svc.cluster.local:443"
    assert exported["object"] == "chat-g0a1b2"
    assert exported["roles"]["decode"][-2:] == ["--max-num-seqs", "48"]
    assert "--max-num-seqs" not in exported["roles"]["prefill"]
    assert exported["name"] == "chat"


AGGREGATED = {
    **MINIMAL,
    "instanceType": "ml.g6e.12xlarge",
    "tensorParallelSize": 4,
    "serving": {"replicas": 2, "gpus": 4},
}


def test_an_aggregated_endpoint_without_routing_has_no_router_to_give_a_stable_address():
    spec = EndpointSpec.model_validate(AGGREGATED)

    def build() -> None:
        e = endpoint(spec, model_bucket="b")
        pulumi.export("e", {"url": e.router_url, "roles": e.role_args})

    result = run_component(build)
    assert result.outputs["e"]["url"] is None
    assert list(result.outputs["e"]["roles"]) == ["serving"]
    assert result.of_type("kubernetes:core/v1:Service") == []
    (config,) = result.of_type(CONFIG_TYPE)
    # Pulumi waits for the state the operator reports once a colocated endpoint serves.
    assert config.inputs["metadata"]["annotations"] == {
        "pulumi.com/waitFor": "jsonpath={.status.state}=DeploymentComplete"
    }


def test_an_aggregated_endpoint_with_routing_keeps_its_stable_address():
    spec = EndpointSpec.model_validate({**AGGREGATED, "routingStrategy": "roundrobin"})
    result = run_component(lambda: endpoint(spec, model_bucket="b"))
    (service,) = result.of_type("kubernetes:core/v1:Service")
    assert service.inputs["spec"]["externalName"].startswith("chat-g0a1b2-default-routing-service")


@pytest.mark.parametrize("kept", [{"adopted": True}, {"rollout": "keepName"}])
def test_an_endpoint_that_keeps_its_names_is_replaced_under_them_deleting_first(kept):
    spec = EndpointSpec.model_validate({**MINIMAL, **kept, "endpointName": "chat-sm"})
    result = run_component(lambda: endpoint(spec, model_bucket="b"))
    (config,) = result.of_type(CONFIG_TYPE)
    assert config.inputs["metadata"]["name"] == "chat"
    assert config.inputs["spec"]["endpointName"] == "chat-sm"
    # Same name, so a replacement must delete first; only what a live pair cannot take replaces.
    assert config.options["deleteBeforeReplace"] is True
    assert config.options["replaceOnChanges"] == sorted(DPD_REPLACES)
    # The operator's router keeps its name: no alias, and no generations to drain.
    assert result.of_type("kubernetes:core/v1:Service") == result.of_type(SLEEP) == []


def test_a_swap_drains_the_old_generation_once_the_address_has_moved():
    spec = EndpointSpec.model_validate({**MINIMAL, "drainSeconds": 45})
    result = run_component(lambda: endpoint(spec, model_bucket="b"))
    (sleep,) = result.of_type(SLEEP)
    (service,) = result.of_type("kubernetes:core/v1:Service")
    # Replaced with each generation, so it runs again on every swap.
    assert sleep.inputs == {"createDuration": "45s", "triggers": {"generation": "chat-g0a1b2"}}
    assert service.urn in sleep.dependencies
    cramped = run_component(lambda: endpoint(spec, model_bucket="b", create_first=False))
    assert cramped.of_type(SLEEP) == []  # deleted first: nothing left to drain
