"""On-demand prices per instance-hour of SageMaker HyperPod instances, by region, each with its
basis, source and date (HyperPod bills each node at SageMaker's `ml.*` rate while allocated).

A price's basis is `hyperpod-on-demand` (HyperPod's own rate, from AWS's Price List, as
`scripts/derive_hyperpod_prices.py` reads it) or `ec2-on-demand` (EC2's rate for the same
hardware, from a dated public dataset: lower than HyperPod's, so the reports say "at least").
A type or region the table lacks has no price, and the reports say so rather than guess.
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

PRICE_TABLE_PATH = Path(__file__).with_name("hyperpod_prices.json")

Basis = Literal["ec2-on-demand", "hyperpod-on-demand"]
EC2_ON_DEMAND: Basis = "ec2-on-demand"
HYPERPOD_ON_DEMAND: Basis = "hyperpod-on-demand"

# The one HyperPod list price found for hardware EC2 also prices: ml.p4d.24xlarge in us-west-2
# at $25.91001756 an hour (Price List, USW2-Cluster:ml.p4d.24xlarge, 2026-10-01), 1.18x EC2's
# $21.95764 (instances.vantage.sh, 2026-08-26). One data point: the reports never multiply by it.
HYPERPOD_OVER_EC2_SEEN = (
    "the one HyperPod rate found, ml.p4d.24xlarge in us-west-2 on 2026-10-01, is 1.18x EC2's; "
    "one data point, not applied here"
)


@dataclass(frozen=True)
class Price:
    usd_per_hour: float
    basis: Basis
    source: str
    # The day the source's figures were published or read, YYYY-MM-DD.
    date: str

    @property
    def lower_bound(self) -> bool:
        """EC2's rate for the same hardware: HyperPod charges more for the node."""
        return self.basis == EC2_ON_DEMAND


@dataclass(frozen=True)
class PriceTable:
    # region -> instance type -> its price.
    prices: dict[str, dict[str, Price]]

    @classmethod
    def load(cls, path: Path) -> "PriceTable":
        table = json.loads(path.read_text())
        sources = table["sources"]
        return cls(
            {
                region: {
                    instance_type: Price(entry["usdPerHour"], **sources[entry["source"]])
                    for instance_type, entry in entries.items()
                }
                for region, entries in table["onDemandUsdPerInstanceHour"].items()
            }
        )

    def price(self, instance_type: str, region: str) -> Price | None:
        return self.prices.get(region, {}).get(instance_type)


PRICES = PriceTable.load(PRICE_TABLE_PATH)


def at_least(lower_bound: bool) -> str:
    return "at least " if lower_bound else ""


def cited(price: Price) -> str:
    return f"{price.source}, {price.date}"


def ec2_caveat(citations: Iterable[str]) -> str:
    """What a cost on EC2's rates is, said once where the costs are shown; `citations` are
    the `cited` sources of the EC2 prices used."""
    return (
        f"EC2 on-demand rates of the same hardware ({'; '.join(sorted(set(citations)))}), not "
        f"HyperPod's: HyperPod's ml.* rates are higher ({HYPERPOD_OVER_EC2_SEEN}), so these "
        "costs are lower bounds. scripts/derive_hyperpod_prices.py writes HyperPod's own rates "
        "from AWS's Price List (docs/planning.md, What the nodes cost)"
    )
