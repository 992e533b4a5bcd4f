"""The price table comes from AWS's Price List offer files: HyperPod's hourly on-demand rates."""

import json

from components.pricing.prices import PriceTable
from scripts.derive_hyperpod_prices import OFFER_URL, derive, main, not_hyperpod


def _product(sku, instance_type, region="us-west-2"):
    attributes = {"instanceType": instance_type, "regionCode": region, "location": "US West"}
    return sku, {"sku": sku, "productFamily": "ML Instance", "attributes": attributes}


def _on_demand(sku, usd, unit="Hrs"):
    dimension = {"unit": unit, "pricePerUnit": {"USD": usd}, "description": "test"}
    return sku, {f"{sku}.JRTCKXETXF": {"priceDimensions": {f"{sku}.1": dimension}}}


def _offer(products, terms, published="2026-11-20T00:00:00Z"):
    return {
        "offerCode": "AmazonSageMaker",
        "publicationDate": published,
        "products": dict(products),
        "terms": {"OnDemand": dict(terms)},
    }


OFFER = _offer(
    [
        _product("A", "ml.p5.48xlarge-Cluster"),
        # The same hardware for training or hosting is another price, not HyperPod's.
        _product("B", "ml.p5.48xlarge-Training"),
        _product("C", "ml.p6-b200.48xlarge-Cluster"),
        _product("D", "ml.c5.4xlarge-Cluster", region="us-east-1"),
        # Listed, but with no on-demand term: no price.
        _product("E", "ml.p5en.48xlarge-Cluster"),
    ],
    [
        _on_demand("A", "50.0000000000"),
        _on_demand("B", "60.0000000000"),
        _on_demand("C", "80.5000000000"),
        _on_demand("D", "0.9000000000"),
    ],
)


EC2 = {"basis": "ec2-on-demand", "source": "instances.vantage.sh", "date": "2026-08-26"}
TABLE = {
    "$comment": "test",
    "sources": {"ec2": EC2},
    "onDemandUsdPerInstanceHour": {
        "us-west-2": {
            "ml.p5.48xlarge": {"usdPerHour": 55.04, "source": "ec2"},
            "ml.p6-b300.48xlarge": {"usdPerHour": 142.416, "source": "ec2"},
        }
    },
}
EMPTY = {"sources": {}, "onDemandUsdPerInstanceHour": {}}


def _usd(table):
    return {
        region: {kind: entry["usdPerHour"] for kind, entry in entries.items()}
        for region, entries in table["onDemandUsdPerInstanceHour"].items()
    }


def test_only_hyperpod_hourly_on_demand_rates_are_kept_by_region():
    table = derive([OFFER], EMPTY)
    assert _usd(table) == {
        "us-east-1": {"ml.c5.4xlarge": 0.9},
        "us-west-2": {"ml.p5.48xlarge": 50.0, "ml.p6-b200.48xlarge": 80.5},
    }
    assert table["sources"]["hyperpod-us-west-2"] == {
        "basis": "hyperpod-on-demand",
        "source": f"{OFFER_URL}/us-west-2/index.json",
        "date": "2026-11-20",
    }


def test_hyperpod_rates_replace_the_ec2_rates_and_the_rest_stay_ec2_and_are_named():
    table = derive([OFFER], TABLE)
    west = table["onDemandUsdPerInstanceHour"]["us-west-2"]
    assert west["ml.p5.48xlarge"] == {"usdPerHour": 50.0, "source": "hyperpod-us-west-2"}
    assert west["ml.p6-b300.48xlarge"] == {"usdPerHour": 142.416, "source": "ec2"}
    assert table["sources"]["ec2"] == EC2
    assert not_hyperpod(table) == ["ml.p6-b300.48xlarge in us-west-2 (ec2-on-demand)"]


def test_a_source_no_entry_uses_any_more_is_dropped():
    only_p5 = {
        **TABLE,
        "onDemandUsdPerInstanceHour": {
            "us-west-2": {"ml.p5.48xlarge": {"usdPerHour": 55.04, "source": "ec2"}}
        },
    }
    assert set(derive([OFFER], only_p5)["sources"]) == {"hyperpod-us-east-1", "hyperpod-us-west-2"}


def test_a_zero_or_non_hourly_dimension_is_no_price():
    offer = _offer(
        [_product("A", "ml.p5.48xlarge-Cluster"), _product("B", "ml.c5.4xlarge-Cluster")],
        [_on_demand("A", "0.0000000000"), _on_demand("B", "0.1000000000", unit="GB-Mo")],
    )
    assert derive([offer], EMPTY)["onDemandUsdPerInstanceHour"] == {}


def test_the_table_is_updated_in_place_from_offer_files_of_several_regions(tmp_path, capsys):
    east = _offer(
        [_product("D", "ml.c5.4xlarge-Cluster", region="us-east-1")],
        [_on_demand("D", "0.9")],
        published="2026-11-25T00:00:00Z",
    )
    paths = []
    for name, offer in (("west", OFFER), ("east", east)):
        paths.append(tmp_path / f"{name}.json")
        paths[-1].write_text(json.dumps(offer))
    out = tmp_path / "prices.json"
    out.write_text(json.dumps(TABLE))
    assert main(["derive", str(out), *map(str, paths)]) == 0
    table = json.loads(out.read_text())
    assert set(table["onDemandUsdPerInstanceHour"]) == {"us-east-1", "us-west-2"}
    assert table["sources"]["hyperpod-us-east-1"]["date"] == "2026-11-25"
    # The table still mixes bases: the script says which entries are not HyperPod's.
    assert "ml.p6-b300.48xlarge in us-west-2 (ec2-on-demand)" in capsys.readouterr().out
    # The result loads as the stack's price table does.
    assert not PriceTable.load(out).price("ml.p5.48xlarge", "us-west-2").lower_bound


def test_without_offer_files_it_prints_its_usage():
    assert main(["derive", "out.json"]) == 2
