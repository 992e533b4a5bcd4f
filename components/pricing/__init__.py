"""What HyperPod instances cost: on-demand prices per instance-hour, by region.

- `prices`: the table (`hyperpod_prices.json`: HyperPod's rates where derived from AWS's Price
  List, else EC2's for the same hardware, each with its basis, source and date) and its lookup.
- `cost`: what GPUs cost an hour, and a million output tokens at a throughput.
- `cluster_cost`: what a cluster's instance groups cost an hour, group by group.
"""
