"""The price table comes from AWS's Price List offer files: HyperPod's hourly on-demand rates."""

import json

from scripts.derive_hyperpod_prices import derive, main


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


def test_only_hyperpod_hourly_on_demand_rates_are_kept_by_region():
    table = derive([OFFER])
    assert table["onDemandUsdPerInstanceHour"] == {
        "us-east-1": {"ml.c5.4xlarge": 0.9},
        "us-west-2": {"ml.p5.48xlarge": 50.0, "ml.p6-b200.48xlarge": 80.5},
    }
    assert table["published"] == "2026-11-20T00:00:00Z"


def test_a_zero_or_non_hourly_dimension_is_no_price():
    offer = _offer(
        [_product("A", "ml.p5.48xlarge-Cluster"), _product("B", "ml.c5.4xlarge-Cluster")],
        [_on_demand("A", "0.0000000000"), _on_demand("B", "0.1000000000", unit="GB-Mo")],
    )
    assert derive([offer])["onDemandUsdPerInstanceHour"] == {}


def test_offer_files_of_several_regions_merge_and_the_latest_date_is_kept(tmp_path):
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
    assert main(["derive", str(out), *map(str, paths)]) == 0
    table = json.loads(out.read_text())
    assert set(table["onDemandUsdPerInstanceHour"]) == {"us-east-1", "us-west-2"}
    assert table["published"] == "2026-11-25T00:00:00Z"


def test_without_offer_files_it_prints_its_usage():
    assert main(["derive", "out.json"]) == 2
