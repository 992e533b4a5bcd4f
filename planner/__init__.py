"""The planner: TTFT, TPOT and throughput of a model served on HyperPod GPUs, and the layouts
that meet an SLO. It deploys nothing; the program reaches it only through
infra/endpoint_predictions.py, and the offline commands import it freely.

Pure Python, no Pulumi. `scenario` is the input (a scenario file's keys, or an endpoint's
settings through `endpoint_scenario`); `predict` the forward model, from `hardware` and
`model_costs` through `phases` (one replica's prefill, decode step and KV transfer),
`serving` (a layout's roles) and `load` (open or closed loop, with `queueing`'s waits);
`recommend` the search for the cheapest layout that meets an SLO. Each module's docstring
says what it holds.
"""
