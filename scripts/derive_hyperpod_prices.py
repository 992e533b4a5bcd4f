"""Derive HyperPod's on-demand prices per instance-hour from AWS Price List offer files.

AWS publishes each service's prices as offer files (the Price List bulk API, "Using the bulk
API" in the AWS Billing user guide): for SageMaker, one per region at
https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonSageMaker/current/<region>/index.json.
In an offer file, `products` maps a SKU to its attributes and `terms.OnDemand` maps the SKU to
its price dimensions, each with a `unit` and a `pricePerUnit` in USD.

SageMaker's products name the use in the instance type's suffix: `ml.c5.4xlarge-Hosting`,
`-Training`, `-Notebook`, and `-Cluster` for HyperPod, which is how HyperPod usage shows in
cost reports (`ml.p5en.48xlarge-Cluster`). Only the `-Cluster` hourly rates are kept.

Usage: python scripts/derive_hyperpod_prices.py OUT_JSON OFFER_JSON [OFFER_JSON ...]
"""

from __future__ import annotations

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


def derive(offers: Iterable[dict]) -> dict:
    hourly: dict[str, dict[str, float]] = {}
    published = []
    for offer in offers:
        published.append(offer["publicationDate"])
        for region, prices in hyperpod_prices(offer).items():
            hourly.setdefault(region, {}).update(prices)
    return {
        "$comment": (
            "HyperPod on-demand USD per instance-hour, derived from AWS Price List offer files "
            "for AmazonSageMaker by scripts/derive_hyperpod_prices.py (the instance types with "
            "the -Cluster suffix). Regenerate with that script; never edit by hand."
        ),
        "source": f"{OFFER_URL}/<region>/index.json",
        "published": max(published, default=None),
        "onDemandUsdPerInstanceHour": {
            region: dict(sorted(prices.items())) for region, prices in sorted(hourly.items())
        },
    }


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    table = derive(json.loads(Path(path).read_text()) for path in argv[2:])
    Path(argv[1]).write_text(json.dumps(table, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
