"""The HyperPod Inference Operator (3.2 or later), installed as an EKS add-on, with its
configuration values and the IAM roles it and its controllers assume."""
