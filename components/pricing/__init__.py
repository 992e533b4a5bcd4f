"""What HyperPod instances cost: on-demand prices per instance-hour by region
(hyperpod_prices.json), per GPU, per million output tokens and per instance group."""
