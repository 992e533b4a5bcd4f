"""The Kubernetes kind a DPD endpoint is: the inference operator's InferenceEndpointConfig."""

API_VERSION = "inference.sagemaker.aws.amazon.com/v1"
KIND = "InferenceEndpointConfig"
