"""The planner: TTFT, TPOT and throughput of a model served on HyperPod GPUs, and the layouts
that meet an SLO. It deploys nothing; the program reaches it only through
infra/endpoint_predictions.py, and the offline commands import it freely.

Pure Python, no Pulumi. `scenario` is the input (a scenario file's keys, or an endpoint's
settings through `endpoint_scenario`); `predict` the forward model, `recommend` the search for
the cheapest layout that meets an SLO.

- `hardware`: per-GPU peaks, HBM, NVLink and EFA of the five DPD instance types.
- `model_costs`: FLOPs and bytes per token of a model architecture.
- `efficiency`: the fitted fractions of peak each engine reaches, its first token's floor, and
  the disaggregated hand-off per KV connector.
- `phases`: the time of a prefill, a decode step and a KV transfer on one replica.
- `queueing`: the waits of a queue (M/D/1, Erlang C for a free slot) and their percentiles.
- `layouts`: one role's layout (TP, EP, DP attention), refused with the key when the stack can't
  run it, and what fits in its memory.
- `serving`: the roles of a scenario (disaggregated or aggregated) and their step times.
- `load`: the load on them: open-loop Poisson arrivals or a closed loop of clients (a first
  wave, then the rate they sustain), to batches, waits, percentiles and saturation.
- `threshold`: `routingThreshold` from a short prompt's cost on a decoder against the prefill
  trip.
- `endpoint_item`: a recommended layout as an endpoint item the stack deploys (`--emit-endpoint`).
- `measured`: a benchmark's load, and the bounded correction an endpoint's measured runs make.
- `calibration_cases`: the public measured runs (calibration/runs.yaml) and the model's
  prediction of each.
"""
