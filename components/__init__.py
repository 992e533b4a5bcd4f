"""Reusable typed Pulumi components for serving LLMs on SageMaker HyperPod, and their pure logic.

One package per concern, in layers lowest first (tests/test_import_graph.py holds them): `core`;
`model`, `network`, `storage`, `operator`; `cluster`, `observability`; `endpoint`, `pricing`;
`sizing`. Package `__init__` files import nothing, so a pure module loads without the provider
SDKs (the policy pack has none): import a name from its module.
"""
