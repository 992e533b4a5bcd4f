"""On-demand prices per instance-hour of SageMaker HyperPod instances, by region.

HyperPod bills each node at SageMaker's own rate for the instance type (an `ml.*` rate, which
differs from EC2's for the same hardware), per instance-hour while the node is allocated
("SageMaker HyperPod pricing" in the SageMaker developer guide; the rates themselves are on
aws.amazon.com/sagemaker/pricing, HyperPod tab).

The table is derived, not typed: `scripts/derive_hyperpod_prices.py` reads AWS's Price List
offer files for AmazonSageMaker and keeps the HyperPod ("-Cluster") on-demand rates. A type or
region the table lacks has no price: lookups return None and the reports say so, rather than
guess. See docs/planning.md, "What the nodes cost".
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

PRICE_TABLE_PATH = Path(__file__).with_name("hyperpod_prices.json")


@dataclass(frozen=True)
class PriceTable:
    # Where the figures come from, and the publication date of the offer files read.
    source: str
    date: str | None
    # region -> instance type -> USD per instance-hour, on demand.
    hourly: dict[str, dict[str, float]]

    @classmethod
    def load(cls, path: Path) -> PriceTable:
        table = json.loads(path.read_text())
        return cls(table["source"], table["published"], table["onDemandUsdPerInstanceHour"])

    def price(self, instance_type: str, region: str) -> float | None:
        """USD per instance-hour of `instance_type` in `region`, or None where not known."""
        return self.hourly.get(region, {}).get(instance_type)


PRICES = PriceTable.load(PRICE_TABLE_PATH)
PRICE_SOURCE = PRICES.source
PRICE_DATE = PRICES.date


def hourly_price(instance_type: str, region: str) -> float | None:
    """On-demand USD per instance-hour of a HyperPod `instance_type` in `region`, or None."""
    return PRICES.price(instance_type, region)
