"""DpdEndpoint registers the real Kubernetes objects, under mocks with preview=False."""

import pulumi
import pulumi_kubernetes as k8s
import pytest

from components.endpoint.dpd_endpoint import DpdEndpoint, DpdEndpointArgs
from components.endpoint.manifest import build_manifest
from components.endpoint.spec import DpdEndpointSpec
from tests.components.endpoint.test_manifest import MINIMAL
from tests.support import run_component

CONFIG_TYPE = "kubernetes:inference.sagemaker.aws.amazon.com/v1:InferenceEndpointConfig"
HF_SOURCE = {"huggingFace": {"modelId": "org/model", "tokenConfigKey": "hfToken"}}


def endpoint(spec: DpdEndpointSpec, **args) -> DpdEndpoint:
    return DpdEndpoint("default/chat", DpdEndpointArgs(spec=spec, region="us-east-2", **args))


def test_registers_the_built_manifest_as_a_custom_resource_in_its_namespace():
    spec = DpdEndpointSpec.model_validate(MINIMAL)
    result = run_component(lambda: endpoint(spec, model_bucket="weights"))
    (config,) = result.of_type(CONFIG_TYPE)
    expected = build_manifest(spec, model_bucket="weights", region="us-east-2")
    assert config.inputs == expected
    assert config.inputs["metadata"] == {"name": "chat", "namespace": "default"}
    assert config.parent == result.of_type("hyperpod-dpd:endpoint:DpdEndpoint")[0].urn


def test_a_routing_change_replaces_the_endpoint_deleting_it_first():
    result = run_component(
        lambda: endpoint(DpdEndpointSpec.model_validate(MINIMAL), model_bucket="b")
    )
    (config,) = result.of_type(CONFIG_TYPE)
    assert config.options["replaceOnChanges"] == ["spec.intelligentRoutingSpec"]
    assert config.options["deleteBeforeReplace"] is True


def test_the_model_bucket_may_be_an_output_of_another_resource():
    spec = DpdEndpointSpec.model_validate(MINIMAL)
    result = run_component(lambda: endpoint(spec, model_bucket=pulumi.Output.from_input("late")))
    (config,) = result.of_type(CONFIG_TYPE)
    assert config.inputs["spec"]["modelSourceConfig"]["s3Storage"]["bucketName"] == "late"


def test_a_hugging_face_token_becomes_a_secret_the_endpoint_waits_for():
    spec = DpdEndpointSpec.model_validate({**MINIMAL, "modelSource": HF_SOURCE})
    result = run_component(lambda: endpoint(spec, hf_token=pulumi.Output.secret("hf_abc")))
    (secret,) = result.of_type("kubernetes:core/v1:Secret")
    (config,) = result.of_type(CONFIG_TYPE)
    assert secret.inputs["metadata"] == {"name": "chat-hf-token", "namespace": "default"}
    assert secret.inputs["stringData"] == {"token": "[secret]"}
    assert secret.urn in config.dependencies
    ref = config.inputs["spec"]["modelSourceConfig"]["huggingFaceModel"]["tokenSecretRef"]
    assert ref == {"name": "chat-hf-token", "key": "token"}


def test_the_caller_dependencies_reach_every_child():
    spec = DpdEndpointSpec.model_validate({**MINIMAL, "modelSource": HF_SOURCE})

    def build() -> None:
        operator = k8s.core.v1.Namespace("operator", metadata={"name": "ops"})
        DpdEndpoint(
            "default/chat",
            DpdEndpointArgs(spec=spec, region="r", hf_token="t"),
            opts=pulumi.ResourceOptions(depends_on=[operator]),
        )

    result = run_component(build)
    (operator,) = result.of_type("kubernetes:core/v1:Namespace")
    for child in (*result.of_type(CONFIG_TYPE), *result.of_type("kubernetes:core/v1:Secret")):
        assert operator.urn in child.dependencies


def test_a_token_without_a_source_that_wants_one_is_a_programming_error():
    spec = DpdEndpointSpec.model_validate(MINIMAL)
    with pytest.raises(ValueError, match="hf_token is needed exactly when"):
        run_component(lambda: endpoint(spec, model_bucket="b", hf_token="t"))


def test_outputs_name_the_router_and_the_effective_role_args():
    spec = DpdEndpointSpec.model_validate({**MINIMAL, "decode": {"maxNumSeqs": 48}})

    def build() -> None:
        e = endpoint(spec, model_bucket="b")
        pulumi.export(
            "e",
            {
                "url": e.router_url,
                "prefill": e.prefill_args,
                "decode": e.decode_args,
                "name": e.endpoint_name,
            },
        )

    exported = run_component(build).outputs["e"]
    assert exported["url"].startswith("http://chat-default-routing-service.")
    assert exported["decode"][-2:] == ["--max-num-seqs", "48"]
    assert "--max-num-seqs" not in exported["prefill"]
    assert exported["name"] == "chat"
