"""A DPD endpoint: an InferenceEndpointConfig with pdSpec, DPD environment, routing, KV cache.

Each module holds a concept's settings, its rules, or both:
- `spec`: the endpoint settings (keys use the CRD's names); `model_source`, `roles`, `image`
  and `tags` type the parts with a concept of their own.
- `kind`, `manifest`: the Kubernetes kind, the pure manifest builder and the fields it owns.
- `vllm_args`, `environment`, `routing`, `autoscaling`: each role's vLLM command line, the DPD
  environment variables, the operator's KV cache and routing, per-role autoscaling.
- `schema`, `guardrails`: the operator's CRD schema, and what every DPD manifest must hold.
- `checks`: every rule of the settings, run; `observability_checks`: those with observability.
- `inference_endpoint`: the `InferenceEndpoint` component.
"""
