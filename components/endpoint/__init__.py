"""A DPD endpoint: an InferenceEndpointConfig with pdSpec, DPD environment, routing, KV cache.

- `spec`: the endpoint settings (keys use the CRD's names).
- `kind`: the Kubernetes kind an endpoint is.
- `manifest`: the pure manifest builder.
- `vllm_args`: the operator's merge of role arguments over worker arguments.
- `environment`: the DPD environment variables the program pins.
- `schema`: validation against the operator's own CRD schema.
- `guardrails`, `checks`: rules on the built manifest and on the settings.
- `observability_checks`: rules tying the endpoints to observability.
- `dpd_endpoint`: the `DpdEndpoint` component.
"""
