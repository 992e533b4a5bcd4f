"""The HyperPod Inference Operator (3.2 or later), installed as an EKS add-on.

- `spec`: the `operator` settings.
- `versions`: the add-on to operator version table and the DPD floor.
- `checks`: the version guard.
- `values`: the add-on's configuration values.
- `iam`: the IAM roles the operator and its controllers assume.
- `inference_operator`: the `InferenceOperator` component.
"""
