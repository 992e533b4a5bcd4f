"""The performance model: TTFT, TPOT and throughput of a model served on HyperPod GPUs.

Pure Python, no Pulumi. `scenario` is the input (a scenario file's keys, or an endpoint's
settings through `endpoint_scenario`); `predict` the forward model, `recommend` the search for
the cheapest layout that meets an SLO.

- `hardware`: per-GPU peaks, HBM, NVLink and EFA of the five DPD instance types.
- `model_costs`: FLOPs and bytes per token of a model architecture.
- `efficiency`: the calibrated fractions of peak each engine reaches, per phase.
- `phases`: the time of a prefill, a decode step and a KV transfer on one replica.
- `queueing`: load -> batch and waits (open loop M/D/1, closed loop).
"""
