"""The performance model: TTFT, TPOT and throughput of a model served on HyperPod GPUs.

Pure Python, no Pulumi. `scenario` is the input (a scenario file's keys, or an endpoint's
settings through `endpoint_scenario`); `predict` the forward model, `recommend` the search for
the cheapest layout that meets an SLO.

- `hardware`: per-GPU peaks, HBM, NVLink and EFA of the five DPD instance types.
- `model_costs`: FLOPs and bytes per token of a model architecture.
- `efficiency`: the calibrated fractions of peak each engine reaches, per phase.
- `phases`: the time of a prefill, a decode step and a KV transfer on one replica.
- `queueing`: the waits of a queue (M/D/1, Erlang C for a free slot) and their percentiles.
- `roles`: one role's layout (TP, EP, DP attention), refused with the key when the stack can't
  run it, and what fits in its memory.
- `serving`: the roles of a scenario (disaggregated or aggregated) and their step times.
- `load`: the load on them: open-loop Poisson arrivals or a closed loop of clients (waves of
  fixed-length requests), to batches, waits, percentiles and saturation.
- `routing`: `routingThreshold` from a short prompt's cost on a decoder against the prefill trip.
- `endpoint_item`: a recommended layout as an endpoint item the stack deploys (`--emit-endpoint`).
- `calibration_cases`: the public measured runs and the model's prediction of each.
"""
