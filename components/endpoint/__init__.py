"""An inference endpoint: one InferenceEndpointConfig, disaggregated (DPD: pdSpec, the DPD
environment, routing, KV cache) or colocated (a `serving` block, no pdSpec). Each module holds a
concept's settings, its rules, or both; `checks.py` runs them all, `manifest.py` builds the
manifest, `inference_endpoint.py` is the component (docs/architecture.md lists the rest)."""
