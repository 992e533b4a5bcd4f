"""Bad configuration is refused before any resource, one line per problem, naming the key."""

import re
from datetime import date
from typing import Any

import pulumi
import pytest

from components.core.terminal_text import one_line
from components.endpoint.manifest import build_manifest, endpoint_generation
from infra import clock, settings
from infra.config_errors import ConfigError
from tests.pasted import HOSTILE, paste
from tests.stack_changes import cli_refusal, cli_renders, endpoint, env, hugging_face, setting
from tests.support import (
    EP,
    dev_config,
    dev_endpoint,
    existing_cluster_config,
    problem_for,
    problems,
    render,
    settings_of,
    with_endpoints,
)
from tools.render.stack_config import to_stack_config

KEY = "hyperpod-dpd:endpoints[0]"


def endpoint_problems(**changes: Any) -> list[str]:
    return problems(with_endpoints({**dev_endpoint(), **changes}, gpu_nodes=4))


@pytest.mark.parametrize(
    "changes, key, says",
    [
        ({"instanceType": "ml.g4dn.xlarge"}, "instanceType", "must be a GPU instance type"),
        ({"prefill": {"replicas": 0}}, "prefill.replicas", "greater than or equal to 1"),
        ({"decode": {"replicas": -2}}, "decode.replicas", "greater than or equal to 1"),
        ({"routingThreshold": -1}, "routingThreshold", "greater than or equal to 0"),
        (
            {"routingStrategy": "random"},
            "routingStrategy",
            "'prefixaware', 'kvaware', 'session' or 'roundrobin'",
        ),
        ({"prefill": {"gpus": 0}}, "prefill.gpus", "greater than or equal to 1"),
        ({"decode": {"gpus": 16}}, "decode.gpus", "allowed 1..8"),
        ({"prefill": {"gpus": 4}}, "prefill.gpus", "tensorParallelSize 8"),
        ({"tensorParallelSize": 3}, "tensorParallelSize", "must be 1, 2, 4 or 8"),
        ({"modelName": "-Llama"}, "modelName", "starting and ending with a letter or digit"),
        ({"modelName": "L" * 64}, "modelName", "at most 63 letters"),
        ({"endpointName": "dpd_test"}, "endpointName", "must be a SageMaker endpoint name"),
        ({"endpointName": "e" * 64}, "endpointName", "at most 63 letters, digits or"),
        (
            {"environmentVariables": {"PYTHONHASHSEED": "1"}},
            "environmentVariables.PYTHONHASHSEED",
            "only allowed value is '0'",
        ),
        (
            {"environmentVariables": {"LMCACHE_SAVE_DECODE_CACHE": "True"}},
            "environmentVariables.LMCACHE_SAVE_DECODE_CACHE",
            "only allowed value is 'False'",
        ),
        ({"pdBufferSize": 0}, "pdBufferSize", "greater than 0"),
        ({"pdBufferSize": "-8GiB"}, "pdBufferSize", "'-8GiB' is not allowed"),
        ({"pdBufferSize": "8 gigs"}, "pdBufferSize", "must be a byte count or a size in KiB"),
        (
            {"routingStrategy": "kvaware", "invocationEndpoint": "invocations"},
            "invocationEndpoint",
            "completions path",
        ),
        ({"kvCache": {"l2CacheBackend": "redis"}}, "kvCache.l2CacheLocalUrl", "Redis URL"),
        ({"routingTreshold": 8192}, "routingTreshold", "did you mean routingThreshold?"),
        ({"maxModelLen": 0}, "maxModelLen", "greater than or equal to 1"),
    ],
)
def test_a_bad_endpoint_setting_is_refused_naming_its_key(changes, key, says):
    assert says in problem_for(f"{KEY}.{key}", endpoint_problems(**changes))


def test_a_missing_required_setting_is_named():
    endpoint = dev_endpoint()
    del endpoint["modelName"]
    assert problems(with_endpoints(endpoint)) == [f"{KEY}.modelName: is required"]


def test_the_bad_value_is_quoted():
    (problem,) = endpoint_problems(routingThreshold=-1)
    assert (
        problem == f"{KEY}.routingThreshold: -1 is not allowed; must be greater than or equal to 0"
    )


def test_every_problem_is_reported_at_once():
    found = endpoint_problems(routingThreshold=-1, tensorParallelSize=3, prefill={"replicas": 0})
    assert len(found) == 3


def test_endpoint_names_are_unique_within_a_namespace():
    second = {**dev_endpoint(), "endpointName": "dpd-second"}
    found = problems(with_endpoints(dev_endpoint(), second, gpu_nodes=4))
    assert found == [
        "hyperpod-dpd:endpoints[1].name: 'dpd-test' is already used in namespace 'default' by "
        "endpoints[0]; names are unique per namespace"
    ]


def test_the_same_name_in_another_namespace_is_fine():
    # Passed by every check; that each endpoint renders is test_several_endpoints_render_each_one.
    other = {**dev_endpoint(), "namespace": "team-b", "endpointName": "dpd-team-b"}
    settings = settings_of(with_endpoints(dev_endpoint(), other, gpu_nodes=4))
    assert [e.namespace for e in settings.stack.endpoints] == ["default", "team-b"]


def test_an_unknown_top_level_key_is_refused():
    config = dev_config()
    config["hyperpod-dpd:endpoint"] = []
    (problem,) = problems(config)
    assert problem.startswith(
        "hyperpod-dpd:endpoint: is not a known setting (did you mean endpoints?)"
    )


def test_the_endpoints_key_is_required_though_it_may_be_an_empty_list():
    config = dev_config()
    del config["hyperpod-dpd:endpoints"]
    (problem,) = problems(config)
    assert problem.startswith("hyperpod-dpd:endpoints: ")
    # What such a stack renders: test_a_stack_with_no_endpoints_builds_the_cluster_and_the_....
    assert settings_of(with_endpoints()).stack.endpoints == []


def test_an_existing_model_bucket_must_be_named():
    config = dev_config()
    config["hyperpod-dpd:buckets"] = {"model": {"existing": True}}
    assert problems(config) == [
        "hyperpod-dpd:buckets.model.name: is required when buckets.model.existing is true"
    ]


def test_a_hugging_face_token_key_must_be_set():
    source = {
        "huggingFace": {"modelId": "meta-llama/Llama-3.3-70B-Instruct", "tokenConfigKey": "hfToken"}
    }
    (problem,) = endpoint_problems(modelSource=source)
    assert problem.startswith(f"{KEY}.modelSource.huggingFace.tokenConfigKey: hyperpod-dpd:hfToken")
    assert "pulumi config set --secret hfToken" in problem


@pytest.mark.parametrize("value", HOSTILE)
def test_the_command_that_sets_the_token_pastes_safely_whatever_its_key(tmp_path, value):
    source = {"huggingFace": {"modelId": "org/model", "tokenConfigKey": f"hfToken{value}"}}
    (problem,) = endpoint_problems(modelSource=source)
    (command,) = re.findall(r"`(pulumi config set .*)` \(it asks", problem)
    pasted = paste([command], tmp_path)
    assert pasted.created == []
    assert pasted.calls == [["pulumi", "config", "set", "--secret", one_line(f"hfToken{value}")]]


def test_a_hugging_face_token_in_plain_text_is_refused_with_the_command_that_encrypts_it():
    source = {"huggingFace": {"modelId": "org/model", "tokenConfigKey": "hfToken"}}
    endpoint = {**dev_endpoint(), "modelSource": source}
    plain = with_endpoints(endpoint, gpu_nodes=4, **{"hyperpod-dpd:hfToken": "hf_plaintexttoken"})
    (problem,) = problems(plain)
    assert problem.startswith(f"{KEY}.modelSource.huggingFace.tokenConfigKey: hyperpod-dpd:hfToken")
    assert "is plain text in the stack file" in problem
    assert "`pulumi config set --secret hfToken` (it asks for the token)" in problem
    assert "hf_plaintexttoken" not in problem
    encrypted = with_endpoints(
        endpoint, gpu_nodes=4, **{"hyperpod-dpd:hfToken": {"secure": "v1:abc"}}
    )
    assert list(settings_of(encrypted).secrets) == ["hfToken"]


def test_the_cli_names_encrypted_keys_in_the_environment(monkeypatch):
    # `pulumi up` hands the program its encrypted keys in PULUMI_CONFIG_SECRET_KEYS, not through
    # set_all_config as the offline render does.
    source = {"huggingFace": {"modelId": "org/model", "tokenConfigKey": "hfToken"}}
    endpoint = {**dev_endpoint(), "modelSource": source}
    config = with_endpoints(endpoint, gpu_nodes=4, **{"hyperpod-dpd:hfToken": "decrypted"})
    # As the language host runs the program: the stack's values set, no secret keys among them.
    pulumi.runtime.set_all_config(to_stack_config(config).values, [])
    monkeypatch.setenv("PULUMI_CONFIG_SECRET_KEYS", '["hyperpod-dpd:hfToken"]')
    assert settings.check_config().stack.endpoints[0].model_source.hugging_face is not None
    monkeypatch.delenv("PULUMI_CONFIG_SECRET_KEYS")
    with pytest.raises(ConfigError, match="hfToken is plain text in the stack file"):
        settings.check_config()


def test_spec_overrides_are_checked_against_the_crd_schema():
    (problem,) = endpoint_problems(specOverrides={"pdSpec": {"routingTreshold": 1}})
    assert problem.startswith(
        f"{KEY}: the CRD of operator 3.4 (from hyperpod-dpd:operator.addonVersion "
        "v1.5.0-eksbuild.1) rejects spec.pdSpec:"
    )
    assert "'routingTreshold' was unexpected" in problem


OPERATOR_3_3_FIELDS = {
    "modelCacheConfig": {"weightsCache": {"enabled": True}},
    "loadBalancer": {"idleTimeoutSeconds": 600},
}


def built_manifest(config: dict[str, Any]) -> dict[str, Any]:
    """The InferenceEndpointConfig of the stack's one endpoint, once every check passes, as the
    endpoint component registers it (tests/components/endpoint/test_inference_endpoint.py)."""
    settings = settings_of(config)
    (spec,) = settings.stack.endpoints
    where = {"model_bucket": settings.bucket_names.model, "region": settings.account.region}
    return build_manifest(spec, **where, digest=endpoint_generation(spec, **where))


def test_fields_of_operator_3_3_pass_with_the_default_addon():
    config = dev_config()
    config["hyperpod-dpd:endpoints"][0].update(OPERATOR_3_3_FIELDS)
    manifest = built_manifest(config)
    assert manifest["spec"]["loadBalancer"]["idleTimeoutSeconds"] == 600
    assert manifest["spec"]["modelCacheConfig"] == {"weightsCache": {"enabled": True}}


@pytest.mark.parametrize(
    "stack, operator, source",
    [
        (
            dev_config,
            {"addonVersion": "v1.3.0-eksbuild.1"},
            "operator.addonVersion v1.3.0-eksbuild.1",
        ),
        (
            existing_cluster_config,
            {"installed": {"operatorVersion": "3.2"}},
            "operator.installed.operatorVersion",
        ),
    ],
)
def test_fields_of_operator_3_3_are_refused_when_the_stack_runs_3_2(stack, operator, source):
    config = stack()
    config["hyperpod-dpd:endpoints"][0].update(OPERATOR_3_3_FIELDS)
    config["hyperpod-dpd:operator"] = operator
    found = problems(config)
    prefix = f"{KEY}: the CRD of operator 3.2 (from hyperpod-dpd:{source}) rejects spec"
    assert found == [
        f"{prefix}: Additional properties are not allowed ('modelCacheConfig' was unexpected)",
        f"{prefix}.loadBalancer: Additional properties are not allowed ('idleTimeoutSeconds' "
        "was unexpected)",
    ]


def test_spec_overrides_cannot_change_what_settings_write():
    (problem,) = endpoint_problems(specOverrides={"pdSpec": {"routingThreshold": 1}})
    assert problem.startswith(f"{KEY}.specOverrides.pdSpec.routingThreshold: ")


def test_a_built_manifest_that_breaks_a_dpd_guardrail_is_refused(monkeypatch):
    # Typed settings always write the DPD variables, so break the builder itself.
    def without_hash_seed(*args, **kwargs):
        built = build_manifest(*args, **kwargs)
        worker = built["spec"]["worker"]
        worker["environmentVariables"] = [
            v for v in worker["environmentVariables"] if v["name"] != "PYTHONHASHSEED"
        ]
        return built

    monkeypatch.setattr(settings, "build_manifest", without_hash_seed)
    assert problems(dev_config()) == [
        f"{KEY}: the manifest breaks DPD at spec.worker.environmentVariables: PYTHONHASHSEED "
        "is not set; DPD needs PYTHONHASHSEED=0"
    ]


def test_warnings_do_not_stop_the_deployment_and_reach_the_log():
    endpoint = {**dev_endpoint(), "prefill": {"replicas": 2, "gpus": 8}}
    result = render(with_endpoints(endpoint, gpu_nodes=3))
    assert (
        f"{KEY}.routingStrategy: prefixaware with 2 prefill replicas can pile load on one "
        "prefiller; roundrobin spreads it evenly, but on a deployed endpoint changing "
        "routingStrategy replaces it (`hyperpod-dpd diff` says how, and what callers see)"
    ) in result.warnings


# Sizing: every rule runs in the program, so `pulumi preview` stops on errors and logs warnings.

CATALOG_IDS = (
    "llama-3.1-8b, llama-3.1-70b, llama-3.3-70b, llama-3.1-405b, qwen2.5-72b, qwen3-32b, "
    "mixtral-8x7b, deepseek-v3, gpt-oss-120b, qwen3-30b-a3b, qwen3-235b-a22b, deepseek-r1, "
    "minimax-m2, gpt-oss-20b"
)


def endpoint_warnings(config: dict) -> list[str]:
    return [w for w in settings_of(config).warnings if w.startswith("hyperpod-dpd:endpoints")]


def test_the_dev_stack_sizes_without_warnings():
    assert endpoint_warnings(dev_config()) == []


def test_a_model_name_outside_the_catalog_requires_the_architecture():
    assert endpoint_problems(modelName="my-finetune") == [
        f"{KEY}.architecture: is required, because modelName 'my-finetune' names no catalog "
        f"model and DPD's PD buffer is sized from it; set a catalog id ({CATALOG_IDS}), "
        "explicit fields, or {configFile: <path to config.json>, parameters: <count>}"
    ]


def test_an_unknown_catalog_id_is_refused_listing_the_ids():
    (problem,) = endpoint_problems(architecture="llama-4")
    assert problem.startswith(
        f"{KEY}.architecture: 'llama-4' is not allowed; must be a catalog id ({CATALOG_IDS})"
    )


def test_a_misspelt_architecture_field_gets_a_suggestion():
    explicit = {"layers": 80, "kvHead": 8, "headDim": 128, "parameters": 70e9}
    found = endpoint_problems(modelName="my-finetune", architecture=explicit)
    assert found[0].startswith(
        f"{KEY}.architecture.kvHead: is not a known setting (did you mean kvHeads?)"
    )


def test_a_missing_config_json_names_the_config_file_key(tmp_path):
    missing = tmp_path / "config.json"
    architecture = {"configFile": str(missing), "parameters": 70.6e9}
    assert endpoint_problems(architecture=architecture) == [
        f"{KEY}.architecture.configFile: {missing}: no such file"
    ]


def test_a_misspelt_workload_field_gets_a_suggestion():
    (problem,) = endpoint_problems(workload={"concurency": 10})
    assert problem.startswith(
        f"{KEY}.workload.concurency: is not a known setting (did you mean concurrency?)"
    )


def test_a_sizing_error_stops_the_program_naming_its_key():
    (problem,) = endpoint_problems(pdBufferSize="32GiB")
    assert problem.startswith(f"{KEY}.pdBufferSize: 32 GiB does not fit on the decoder")


def test_sizing_errors_are_reported_with_every_other_problem():
    found = endpoint_problems(pdBufferSize="32GiB", prefill={"gpus": 4})
    assert [line.split(":", 2)[1] for line in found] == [
        "endpoints[0].prefill.gpus",
        "endpoints[0].pdBufferSize",
    ]


def test_sizing_warnings_reach_the_log_without_stopping_the_program():
    found = endpoint_warnings(with_endpoints({**dev_endpoint(), "workload": {"outputTokens": 128}}))
    assert found == [
        f"{KEY}.workload.outputTokens: 128 is not over 256: DPD pays off for outputs over 256 "
        "tokens, where a steadier time per token adds up"
    ]


def test_info_findings_stay_out_of_the_warnings():
    # No whole-GiB buffer holds 64 transfers of 6,000 tokens and one of 131,072 on a p5.
    endpoint = {
        **dev_endpoint(),
        "maxModelLen": 131072,
        "pdBufferSize": "16GiB",
        "workload": {"typicalInputTokens": 6000, "concurrency": 64},
    }
    assert endpoint_warnings(with_endpoints(endpoint)) == []


def test_architecture_and_workload_stay_out_of_the_manifest():
    described = {
        **dev_endpoint(),
        "architecture": "llama-3.3-70b",
        "workload": {"typicalInputTokens": 6000, "concurrency": 32},
    }
    assert built_manifest(with_endpoints(described)) == built_manifest(dev_config())


def test_a_namespace_differing_only_in_case_is_named_as_misspelt():
    config = dev_config()
    config["Hyperpod-DPD:observability"] = {"enabled": False}
    assert (
        "Hyperpod-DPD:observability: is in namespace Hyperpod-DPD, which this program never "
        "reads; did you mean hyperpod-dpd:observability?"
    ) in problems(config)


def test_the_region_is_required():
    config = dev_config()
    del config["aws:region"]
    assert problems(config) == [
        "aws:region: is required, e.g. `pulumi config set aws:region us-west-2`"
    ]


# Through the command line: one line naming the key, no traceback, nothing written.
CLI_REFUSED = {
    **{
        f"tokenConfigKey {key}": (
            hugging_face(key),
            f"{EP}.modelSource.huggingFace.tokenConfigKey: {key!r} names a namespace, but the "
            "token is always read from this project's (hyperpod-dpd:<name>); give a name alone, "
            "e.g. hfToken, set with `pulumi config set --secret hfToken` (it asks for the token)",
        )
        for key in ("aws:region", "hyperpod-dpd:hfToken")
    },
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
        "`pulumi config set --secret hfToken` (it asks for the token)",
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
    "text where a setting's mapping goes": (
        setting("hyperpod-dpd:network", "10.0.0.0/16"),
        "hyperpod-dpd:network: is text; this setting is a YAML mapping",
    ),
    "a setting left empty, which the CLI passes as empty text": (
        setting("hyperpod-dpd:network", ""),
        "hyperpod-dpd:network: is required unless cluster.existing names a cluster",
    ),
    "a setting under a misspelt namespace, which Pulumi hands to no program": (
        setting("hyperpod_dpd:observability", {"enabled": True}),
        "hyperpod_dpd:observability: is in namespace hyperpod_dpd, which this program never "
        "reads; did you mean hyperpod-dpd:observability?",
    ),
}


@pytest.mark.parametrize("case", CLI_REFUSED)
def test_a_refusal_through_the_command_line_is_one_line(tmp_path, capsys, case):
    change, line = CLI_REFUSED[case]
    assert cli_refusal(tmp_path, capsys, change) == [line]


def test_an_unrelated_namespaces_key_renders(tmp_path):
    assert cli_renders(tmp_path, setting("other:key", "value"))


def test_the_day_the_program_runs_decides_which_kubernetes_versions_pass(monkeypatch):
    monkeypatch.setattr(clock, "utc_today", lambda: date(2028, 3, 27))
    (problem,) = problems(dev_config())
    assert problem.startswith(
        "hyperpod-dpd:cluster.kubernetesVersion: '1.35' is not allowed; EKS's extended support "
        "for it ended on 2028-03-27"
    )


# With maxModelLen unset vLLM serves the model's own context, which the rules then hold to.
UNSET_LENGTH_REFUSED = {
    "a routingThreshold past it": ({"routingThreshold": 200_000}, "routingThreshold"),
    "a typical prompt past it": (
        {"workload": {"typicalInputTokens": 500_000, "outputTokens": 512}},
        "workload.typicalInputTokens",
    ),
}


@pytest.mark.parametrize("case", UNSET_LENGTH_REFUSED)
def test_without_max_model_len_the_models_context_bounds_what_it_serves(tmp_path, capsys, case):
    changes, key = UNSET_LENGTH_REFUSED[case]
    lines = cli_refusal(tmp_path, capsys, endpoint(maxModelLen=None, **changes))
    assert any(
        line.startswith(f"{EP}.{key}: ") and "llama-3.3-70b's context" in line for line in lines
    )
