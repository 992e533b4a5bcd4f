import json
from typing import Any

import pytest
from pydantic import ValidationError

from components.endpoint.spec import EndpointSpec
from components.model.catalog import MODEL_CATALOG
from components.sizing.endpoint_architecture import (
    UnknownArchitectureError,
    endpoint_architecture,
    served_spec,
)
from tests.components.endpoint.test_manifest import MINIMAL
from tests.components.model.test_hf_config import DEEPSEEK_V3

EXPLICIT = {"layers": 40, "kvHeads": 4, "headDim": 128, "parameters": 20e9, "name": "mine"}


def spec(**changes: Any) -> EndpointSpec:
    return EndpointSpec.model_validate({**MINIMAL, **changes})


def test_without_the_setting_the_model_name_picks_the_catalog_entry():
    assert endpoint_architecture(spec(modelName="Llama-3.1-70B")) is MODEL_CATALOG["llama-3.1-70b"]


def test_a_catalog_id_wins_over_the_model_name():
    chosen = spec(modelName="Llama-3.3-70B-Instruct", architecture="qwen2.5-72b")
    assert endpoint_architecture(chosen) is MODEL_CATALOG["qwen2.5-72b"]


def test_explicit_fields_are_the_architecture():
    model = endpoint_architecture(spec(architecture=EXPLICIT))
    assert (model.name, model.layers, model.kv_heads, model.parameters) == ("mine", 40, 4, 20e9)


def test_a_config_json_is_read_with_the_parameters_given_beside_it(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(DEEPSEEK_V3))
    model = endpoint_architecture(spec(architecture={"configFile": str(path), "parameters": 671e9}))
    assert (model.name, model.attention, model.layers, model.parameters) == (
        str(path),
        "MLA",
        61,
        671e9,
    )


def test_a_model_name_outside_the_catalog_needs_the_setting():
    with pytest.raises(UnknownArchitectureError) as raised:
        endpoint_architecture(spec(modelName="my-finetune"))
    finding = raised.value.finding
    assert (finding.level, finding.code, finding.field) == (
        "error",
        "architecture-required",
        "architecture",
    )
    assert "modelName 'my-finetune' names no catalog model" in finding.message
    assert ", ".join(MODEL_CATALOG) in finding.message


def test_an_unreadable_config_json_names_the_config_file_setting(tmp_path):
    missing = str(tmp_path / "nope.json")
    with pytest.raises(UnknownArchitectureError) as raised:
        endpoint_architecture(spec(architecture={"configFile": missing, "parameters": 1e9}))
    assert raised.value.finding.field == "architecture.configFile"
    assert raised.value.finding.message == f"{missing}: no such file"


def locations(architecture: Any) -> list[tuple]:
    with pytest.raises(ValidationError) as raised:
        spec(architecture=architecture)
    return [(e["loc"], e["msg"]) for e in raised.value.errors()]


def test_an_unknown_catalog_id_is_refused_listing_the_ids():
    ((loc, msg),) = locations("llama-4")
    assert loc == ("architecture",)
    assert f"must be a catalog id ({', '.join(MODEL_CATALOG)})" in msg


def test_problems_in_explicit_fields_name_the_fields_not_a_union_branch():
    assert [loc for loc, _ in locations({**EXPLICIT, "kvHead": 4, "layers": 0})] == [
        ("architecture", "layers"),
        ("architecture", "kvHead"),
    ]


def test_the_config_file_form_is_chosen_by_its_key():
    assert [loc for loc, _ in locations({"configFile": "config.json"})] == [
        ("architecture", "parameters")
    ]


@pytest.mark.parametrize(
    "changes",
    [{"serving": {"replicas": 1, "gpus": 8}}, {"adopted": True, "maxModelLen": None}],
    ids=["colocated", "adopted-dpd"],
)
def test_an_endpoint_whose_pd_buffer_is_not_sized_of_an_unknown_model_is_a_warning(changes):
    # Colocated, it has none; adopted, its pods' variable holds it.
    with pytest.raises(UnknownArchitectureError) as raised:
        endpoint_architecture(spec(modelName="my-finetune", **changes))
    assert (raised.value.finding.level, raised.value.finding.code) == (
        "warning",
        "architecture-unknown",
    )


def test_without_max_model_len_the_endpoint_is_sized_for_the_models_own_context():
    model = MODEL_CATALOG["llama-3.3-70b"]
    unset = {k: v for k, v in MINIMAL.items() if k != "maxModelLen"}
    served = served_spec(EndpointSpec.model_validate(unset), model)
    assert served.max_model_len == model.context_length
    assert served_spec(spec(), model).max_model_len == MINIMAL["maxModelLen"]


def test_without_either_length_max_model_len_is_required():
    unset = EndpointSpec.model_validate({k: v for k, v in MINIMAL.items() if k != "maxModelLen"})
    with pytest.raises(UnknownArchitectureError) as raised:
        served_spec(unset, endpoint_architecture(spec(architecture=EXPLICIT)))
    assert raised.value.finding.field == "maxModelLen"


def test_an_adopted_endpoint_on_a_type_without_gpus_is_kept_unsized_with_a_warning():
    cpu = {"serving": {"replicas": 1, "gpus": 1}, "instanceType": "ml.c5.2xlarge"}
    with pytest.raises(ValidationError, match="must be a GPU instance type"):
        spec(**cpu)
    with pytest.raises(UnknownArchitectureError) as raised:
        endpoint_architecture(spec(adopted=True, maxModelLen=None, **cpu))
    assert (raised.value.finding.level, raised.value.finding.field) == ("warning", "instanceType")
