"""What GPUs cost an hour, and what a million output tokens cost at a throughput."""

from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.pricing.prices import PRICES, PriceTable

SECONDS_PER_HOUR = 3600


def gpus_hourly(
    instance_type: str, gpus: int, region: str, prices: PriceTable = PRICES
) -> float | None:
    """USD an hour for `gpus` GPUs of an instance type, their share of the node price; None
    without a price."""
    price = prices.price(instance_type, region)
    if price is None:
        return None
    return gpus * price.usd_per_hour / GPU_INSTANCE_TYPES[instance_type].gpus


def cost_per_million_output_tokens(hourly_usd: float, output_tokens_per_second: float) -> float:
    return hourly_usd / (output_tokens_per_second * SECONDS_PER_HOUR) * 1e6


def usd(amount: float) -> str:
    return f"${amount:,.2f}"
