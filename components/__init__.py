"""Reusable typed Pulumi components for DPD on SageMaker HyperPod, and the pure logic they wire.

One package per concern: `network`, `cluster`, `storage`, `operator`, `endpoint`, `sizing`, and
the shared `core`. Pure modules (specs, plans, rules, checks, builders) sit beside the modules
that hold a ComponentResource. Package `__init__` files import nothing, so a pure module loads
without the provider SDKs (the policy pack's environment has none): import a public name from
its module, e.g. `from components.endpoint.inference_endpoint import InferenceEndpoint`.
"""
