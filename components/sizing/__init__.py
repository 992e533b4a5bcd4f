"""KV-cache sizing: what PD_BUFFER_SIZE must hold, and whether the decoder's HBM holds it all.

- `endpoint_architecture`: which architecture an endpoint serves.
- `kv`: the figures (bytes per token per rank, chunked transfers, HBM).
- `checks`: the sizing rules.
"""
