"""Derive HyperPod's on-demand prices per instance-hour from AWS Price List offer files.

AWS publishes each service's prices as offer files (the Price List bulk API, "Using the bulk
API" in the AWS Billing user guide): for SageMaker, one per region at
https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonSageMaker/current/<region>/index.json.
In an offer file, `products` maps a SKU to its attributes and `terms.OnDemand` maps the SKU to
its price dimensions, each with a `unit` and a `pricePerUnit` in USD.

SageMaker's products name the use in the instance type's suffix: `ml.c5.4xlarge-Hosting`,
`-Training`, `-Notebook`, and `-Cluster` for HyperPod, which is how HyperPod usage shows in
cost reports (`ml.p5en.48xlarge-Cluster`). Only the `-Cluster` hourly rates are kept.

The script updates the price table in place: each HyperPod rate it finds, with basis
`hyperpod-on-demand` and its offer file's region and publication date as source, replaces
whatever the table held for that type and region (an EC2 rate of the same hardware, typed from a
dated public source). Entries it has no HyperPod rate for keep their EC2 basis, and it prints
them, so a table that still mixes bases says so; the reports say "at least" for each.

Usage: python scripts/derive_hyperpod_prices.py TABLE_JSON OFFER_JSON [OFFER_JSON ...]
"""

import json
import sys
from collections.abc import Iterable
from pathlib import Path

OFFER_URL = "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonSageMaker/current"
HYPERPOD_SUFFIX = "-Cluster"


def _hourly_usd(term: dict) -> float | None:
    for offer in term.values():
        for dimension in offer["priceDimensions"].values():
            usd = float(dimension["pricePerUnit"].get("USD", 0))
            if dimension["unit"] == "Hrs" and usd > 0:
                return usd
    return None


def hyperpod_prices(offer: dict) -> dict[str, dict[str, float]]:
    """region -> HyperPod instance type -> on-demand USD per hour, from one offer file."""
    found: dict[str, dict[str, float]] = {}
    on_demand = offer["terms"].get("OnDemand", {})
    for sku, product in offer["products"].items():
        attributes = product.get("attributes", {})
        instance_type = attributes.get("instanceType", "")
        if not instance_type.endswith(HYPERPOD_SUFFIX) or sku not in on_demand:
            continue
        price = _hourly_usd(on_demand[sku])
        if price is not None:
            region = found.setdefault(attributes["regionCode"], {})
            region[instance_type.removesuffix(HYPERPOD_SUFFIX)] = price
    return found


def derive(offers: Iterable[dict], table: dict) -> dict:
    """`table` with the offers' HyperPod rates in place of what it held for those types."""
    sources = dict(table["sources"])
    hourly = {
        region: dict(entries) for region, entries in table["onDemandUsdPerInstanceHour"].items()
    }
    for offer in offers:
        for region, prices in hyperpod_prices(offer).items():
            source = f"hyperpod-{region}"
            sources[source] = {
                "basis": "hyperpod-on-demand",
                "source": f"{OFFER_URL}/{region}/index.json",
                "date": offer["publicationDate"][:10],
            }
            for instance_type, usd in prices.items():
                hourly.setdefault(region, {})[instance_type] = {"usdPerHour": usd, "source": source}
    used = {entry["source"] for entries in hourly.values() for entry in entries.values()}
    return {
        **table,
        "sources": {name: sources[name] for name in sorted(used)},
        "onDemandUsdPerInstanceHour": {
            region: dict(sorted(entries.items())) for region, entries in sorted(hourly.items())
        },
    }


def not_hyperpod(table: dict) -> list[str]:
    """`instance type in region (basis)` for each entry that is not a HyperPod rate."""
    basis = {name: source["basis"] for name, source in table["sources"].items()}
    return [
        f"{instance_type} in {region} ({basis[entry['source']]})"
        for region, entries in table["onDemandUsdPerInstanceHour"].items()
        for instance_type, entry in entries.items()
        if basis[entry["source"]] != "hyperpod-on-demand"
    ]


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    path = Path(argv[1])
    table = derive(
        (json.loads(Path(p).read_text()) for p in argv[2:]), json.loads(path.read_text())
    )
    path.write_text(json.dumps(table, indent=1) + "\n")
    others = not_hyperpod(table)
    if others:
        print(f"{len(others)} prices are still not HyperPod's own: " + ", ".join(others))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
