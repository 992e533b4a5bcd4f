"""What a model is, apart from any endpoint serving it: the facts that size its KV cache, and
those its FLOPs need (for `performance`).

- `architecture`: what sizes a model's KV cache and weights.
- `catalog`: the known models, and inference from a modelName.
- `hf_config`: reading a model's config.json.

It sits below `endpoint` (whose `architecture` setting takes these types) and `sizing` (which
sizes an endpoint's model), so that neither imports the other in a circle.
"""
