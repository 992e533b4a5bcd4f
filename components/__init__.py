"""Reusable typed Pulumi components for serving LLMs on SageMaker HyperPod, and the pure logic
they wire.

One package per concern, in layers lowest first (tests/test_import_graph.py holds them): `core`;
`model`, `network`, `storage`, `operator`; `cluster`, `observability`; `endpoint`, `pricing`;
`sizing`. The planner, which deploys nothing, is the top-level `planner/`. Pure modules (specs,
plans, rules, builders) sit beside the modules that hold a ComponentResource. Package
`__init__` files import nothing, so a pure module loads without the provider SDKs (the policy
pack's environment has none): import a public name from its module, e.g.
`from components.endpoint.inference_endpoint import InferenceEndpoint`.
"""
