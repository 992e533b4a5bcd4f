"""The price table: what it holds, what each figure is, and that it never guesses."""

import json

import pytest

from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.core.regions import HYPERPOD_INSTANCE_TYPES
from components.pricing.prices import (
    EC2_ON_DEMAND,
    PRICE_TABLE_PATH,
    PRICES,
    Price,
    PriceTable,
    ec2_caveat,
)


def test_every_priced_type_is_one_hyperpod_offers_in_that_region():
    for region, prices in PRICES.prices.items():
        assert set(prices) <= HYPERPOD_INSTANCE_TYPES[region], region
        assert all(price.usd_per_hour > 0 for price in prices.values()), region


def test_every_gpu_instance_type_but_p5e_has_a_price_in_some_region():
    # EC2 sells p5e.48xlarge only through Capacity Blocks: no on-demand rate to start from.
    priced = {name for prices in PRICES.prices.values() for name in prices}
    unpriced = [n for n in GPU_INSTANCE_TYPES if n not in priced and n != "ml.p5e.48xlarge"]
    assert not unpriced, (
        f"no price for {unpriced} in components/pricing/hyperpod_prices.json: add HyperPod's "
        "rates with scripts/derive_hyperpod_prices.py, or EC2's on-demand rate for the same "
        "hardware as an ec2-on-demand entry with its dated source (docs/planning.md)"
    )


def test_every_price_says_its_basis_source_and_date():
    for prices in PRICES.prices.values():
        for price in prices.values():
            assert price.basis in ("ec2-on-demand", "hyperpod-on-demand")
            assert price.source and len(price.date) == len("2026-08-26")


@pytest.mark.parametrize(
    ("instance_type", "region", "usd"),
    [
        # EC2's p5.48xlarge and p5en.48xlarge on demand after the June 2025 cut
        # (instances.vantage.sh, 2026-08-26).
        ("ml.p5.48xlarge", "us-west-2", 55.04),
        ("ml.p5.48xlarge", "ap-northeast-1", 68.8),
        ("ml.p5en.48xlarge", "us-east-1", 63.296),
        ("ml.p6-b200.48xlarge", "us-east-2", 113.9328),
        ("ml.p6-b300.48xlarge", "us-west-2", 142.416),
    ],
)
def test_the_committed_gpu_prices_are_ec2_rates_a_lower_bound(instance_type, region, usd):
    price = PRICES.price(instance_type, region)
    assert price is not None
    assert (price.usd_per_hour, price.basis, price.date) == (usd, EC2_ON_DEMAND, "2026-08-26")
    assert price.lower_bound


@pytest.mark.parametrize(
    ("instance_type", "region"),
    [
        # EC2 sells p5e.48xlarge only through Capacity Blocks: no on-demand rate to start from.
        ("ml.p5e.48xlarge", "us-east-1"),
        # No dated source found for the CPU types.
        ("ml.c5.4xlarge", "us-west-2"),
        ("ml.p5.48xlarge", "mars-north-1"),
        ("ml.nonexistent.48xlarge", "us-west-2"),
    ],
)
def test_an_unknown_price_is_none_not_a_guess(instance_type, region):
    assert PRICES.price(instance_type, region) is None


def test_a_table_file_names_each_entrys_source(tmp_path):
    path = tmp_path / "prices.json"
    source = {"basis": "hyperpod-on-demand", "source": "offer", "date": "2026-11-01"}
    path.write_text(
        json.dumps(
            {
                "sources": {"hp": source},
                "onDemandUsdPerInstanceHour": {
                    "us-west-2": {"ml.c5.4xlarge": {"usdPerHour": 0.9, "source": "hp"}}
                },
            }
        )
    )
    table = PriceTable.load(path)
    assert table.price("ml.c5.4xlarge", "us-west-2") == Price(
        0.9, "hyperpod-on-demand", "offer", "2026-11-01"
    )
    assert not table.price("ml.c5.4xlarge", "us-west-2").lower_bound
    assert table.price("ml.c5.4xlarge", "us-east-1") is None


def test_the_committed_table_loads_with_every_source_used():
    committed = json.loads(PRICE_TABLE_PATH.read_text())
    used = {
        entry["source"]
        for entries in committed["onDemandUsdPerInstanceHour"].values()
        for entry in entries.values()
    }
    assert used == set(committed["sources"])


def test_the_ec2_caveat_names_its_source_the_p4d_ratio_and_the_way_to_hyperpods_rates():
    caveat = ec2_caveat(["instances.vantage.sh via github.com/tsaol/aws-gpu, 2026-08-26"] * 2)
    assert caveat.count("2026-08-26") == 1
    assert (
        "ml.p4d.24xlarge in us-west-2 on 2026-10-01, is 1.18x EC2's; one data point, not applied"
        in caveat
    )
    assert "lower bounds" in caveat
    assert "scripts/derive_hyperpod_prices.py" in caveat
