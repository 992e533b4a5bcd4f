"""Reusable typed Pulumi components for DPD on SageMaker HyperPod, and the pure logic they wire."""
