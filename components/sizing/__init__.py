"""KV-cache sizing: what PD_BUFFER_SIZE must hold, and whether the decoder's HBM holds it all.

- `architecture`: what sizes a model's KV cache and weights.
- `catalog`: the known models, and inference from a modelName.
- `hf_config`: reading a model's config.json.
- `endpoint_architecture`: which architecture an endpoint serves.
- `kv`: the figures (bytes per token per rank, chunked transfers, HBM).
- `checks`: the sizing rules.
"""
