"""An inference endpoint: one InferenceEndpointConfig, disaggregated (DPD: pdSpec, the DPD
environment, routing, KV cache) or colocated (a `serving` block, no pdSpec).

Each module holds a concept's settings, its rules, or both:
- `spec`: the endpoint settings (keys use the CRD's names); `model_source`, `roles`, `image`,
  `tags`, `pod`, `probes`, `placement` and `worker` type the parts with a concept of their own.
- `serving_mode`: DPD or colocated, and the keys one mode refuses of the other.
- `kind`, `manifest`, `overrides`: the Kubernetes kind, the pure manifest builder, and the
  setting that owns each field it writes.
- `flags`, `vllm_args`, `arg_credentials`, `environment`, `routing`, `autoscaling`,
  `load_balancer`, `workload`: each role's command line, the environment, routing and the KV
  cache, per-role autoscaling, the load balancer, the workload the endpoint is sized for.
- `engines/`: the model servers beside vLLM (TGI, DJL LMI, SGLang) and the rules for engines.
- `schema`, `guardrails`: the operator's CRD schema, and what every DPD manifest must hold.
- `checks`: every rule of the settings, run; `observability_checks`: those with observability.
- `generation`, `inference_endpoint`: an endpoint's generations, and the `InferenceEndpoint`
  component.
"""
