import pytest

from components.model.catalog import MODEL_CATALOG, catalog_id_for_model_name

# DESIGN.md's architecture table (from each model's config.json), and the publishers'
# parameter totals.
GQA_MODELS = {
    "llama-3.1-8b": (32, 8, 128, 8.03e9),
    "llama-3.1-70b": (80, 8, 128, 70.6e9),
    "llama-3.3-70b": (80, 8, 128, 70.6e9),
    "llama-3.1-405b": (126, 8, 128, 405e9),
    "qwen2.5-72b": (80, 8, 128, 72.7e9),
    "qwen3-32b": (64, 8, 128, 32.8e9),
    "mixtral-8x7b": (32, 8, 128, 46.7e9),
    "gpt-oss-120b": (36, 8, 64, 116.8e9),
}


def test_the_catalog_holds_exactly_the_documented_ids():
    assert list(MODEL_CATALOG) == [
        "llama-3.1-8b",
        "llama-3.1-70b",
        "llama-3.3-70b",
        "llama-3.1-405b",
        "qwen2.5-72b",
        "qwen3-32b",
        "mixtral-8x7b",
        "deepseek-v3",
        "gpt-oss-120b",
        "qwen3-30b-a3b",
        "qwen3-235b-a22b",
        "deepseek-r1",
        "minimax-m2",
        "gpt-oss-20b",
    ]


@pytest.mark.parametrize("catalog_id, facts", GQA_MODELS.items())
def test_grouped_query_models_match_their_config(catalog_id, facts):
    model = MODEL_CATALOG[catalog_id]
    assert (model.layers, model.kv_heads, model.head_dim, model.parameters) == facts
    assert model.dtype == "bf16"


def test_deepseek_v3_is_mla_512_plus_64_with_fp8_weights():
    model = MODEL_CATALOG["deepseek-v3"]
    assert (model.attention, model.layers, model.kv_lora_rank, model.qk_rope_head_dim) == (
        "MLA",
        61,
        512,
        64,
    )
    assert model.dtype == "bf16"
    assert model.weight_bytes == 671e9 * 1


def test_gpt_oss_slides_half_its_layers_over_128_tokens_with_mxfp4_weights():
    model = MODEL_CATALOG["gpt-oss-120b"]
    assert (model.attention, model.sliding_window, model.sliding_window_layers) == (
        "sliding window",
        128,
        18,
    )
    assert model.weight_bytes == 116.8e9 * 4.25 / 8


def test_every_model_but_the_dense_ones_is_moe():
    dense = [catalog_id for catalog_id, model in MODEL_CATALOG.items() if not model.moe]
    assert dense == [
        "llama-3.1-8b",
        "llama-3.1-70b",
        "llama-3.3-70b",
        "llama-3.1-405b",
        "qwen2.5-72b",
        "qwen3-32b",
    ]


@pytest.mark.parametrize(
    "model_name, catalog_id",
    [
        ("Llama-3.3-70B-Instruct", "llama-3.3-70b"),
        ("Meta-Llama-3.1-70B-Instruct", "llama-3.1-70b"),
        ("Llama-3.1-70B", "llama-3.1-70b"),
        ("Llama-3.1-8B", "llama-3.1-8b"),
        ("Llama-3.1-405B-Instruct-FP8", "llama-3.1-405b"),
        ("Qwen2.5-72B-Instruct", "qwen2.5-72b"),
        ("Qwen3-32B", "qwen3-32b"),
        ("Mixtral-8x7B-Instruct-v0-1", "mixtral-8x7b"),
        ("DeepSeek-V3", "deepseek-v3"),
        ("gpt-oss-120b", "gpt-oss-120b"),
        ("DeepSeek-R1-0528", "deepseek-r1"),
        ("Qwen3-235B-A22B-FP8", "qwen3-235b-a22b"),
        ("MiniMax-M2", "minimax-m2"),
    ],
)
def test_a_model_name_that_names_one_catalog_model_infers_it(model_name, catalog_id):
    assert catalog_id_for_model_name(model_name) == catalog_id


@pytest.mark.parametrize(
    "model_name",
    [
        "my-model",
        "Llama-3.3-70",
        "Llama-3.3-700B",
        "DeepSeek-V3.1",
        "Llama3.3-70B",
        "gpt-oss-200b",
        "Llama-3.1-8B-Qwen3-32B-merge",
    ],
)
def test_a_model_name_that_names_no_catalog_model_infers_nothing(model_name):
    assert catalog_id_for_model_name(model_name) is None
