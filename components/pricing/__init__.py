"""What HyperPod instances cost: on-demand prices per instance-hour, by region.

- `prices`: the table (`hyperpod_prices.json`, derived from AWS's Price List) and its lookup.
- `cost`: what GPUs cost an hour, and a million output tokens at a throughput.
- `cluster_cost`: what a cluster's instance groups cost an hour, group by group.
"""

from components.pricing.prices import PRICE_DATE, PRICE_SOURCE, PRICES, hourly_price

__all__ = ["PRICES", "PRICE_DATE", "PRICE_SOURCE", "hourly_price"]
