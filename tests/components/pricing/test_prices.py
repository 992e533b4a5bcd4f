"""The price table: what it holds, where it comes from, and that it never guesses."""

import json

import pytest

from components.core.regions import HYPERPOD_INSTANCE_TYPES
from components.pricing import PRICE_DATE, PRICE_SOURCE, hourly_price
from components.pricing.prices import PRICE_TABLE_PATH, PRICES, PriceTable
from scripts.derive_hyperpod_prices import derive


def test_the_table_names_aws_price_list_as_its_source():
    assert PRICE_SOURCE.startswith("https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/")
    assert "AmazonSageMaker" in PRICE_SOURCE
    # A table with prices says when AWS published them; an empty one has no date to give.
    assert (PRICE_DATE is None) == (not PRICES.hourly)


def test_every_priced_type_is_one_hyperpod_offers_in_that_region():
    for region, prices in PRICES.hourly.items():
        assert set(prices) <= HYPERPOD_INSTANCE_TYPES[region], region
        assert all(price > 0 for price in prices.values()), region


def test_the_committed_table_has_the_shape_the_script_writes():
    committed = json.loads(PRICE_TABLE_PATH.read_text())
    assert committed.keys() == derive([]).keys()


@pytest.mark.parametrize(
    ("instance_type", "region"),
    [
        # HyperPod offers no ml.p5e.48xlarge in any region (components/core/regions.py).
        ("ml.p5e.48xlarge", "us-east-1"),
        ("ml.p5.48xlarge", "mars-north-1"),
        ("ml.nonexistent.48xlarge", "us-west-2"),
    ],
)
def test_an_unknown_price_is_none_not_a_guess(instance_type, region):
    assert hourly_price(instance_type, region) is None


def test_a_table_answers_per_region_and_type(tmp_path):
    path = tmp_path / "prices.json"
    path.write_text(
        json.dumps(
            {
                "source": "test",
                "published": "2026-11-01T00:00:00Z",
                "onDemandUsdPerInstanceHour": {"us-west-2": {"ml.c5.4xlarge": 0.9}},
            }
        )
    )
    table = PriceTable.load(path)
    assert table.price("ml.c5.4xlarge", "us-west-2") == 0.9
    assert table.price("ml.c5.4xlarge", "us-east-1") is None
    assert table.date == "2026-11-01T00:00:00Z"
