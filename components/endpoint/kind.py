"""The Kubernetes kind an endpoint is, DPD or aggregated: the inference operator's
InferenceEndpointConfig."""

API_VERSION = "inference.sagemaker.aws.amazon.com/v1"
KIND = "InferenceEndpointConfig"

# What the operator says once both roles serve (AWS's DPD guide). The CRD names no condition
# type to filter on, so the message is matched among every condition, in any order.
READY_MESSAGE = "DPD prefill and decode deployments are ready"
# The same, as a JSONPath selecting that condition: present once the endpoint serves.
READY_CONDITION = f"{{.status.conditions[?(@.message=='{READY_MESSAGE}')]}}"

# What the operator says once an endpoint without pdSpec serves: the CRD's `status.state`, whose
# enum ends a rollout at DeploymentComplete.
AGGREGATED_READY_STATE = "DeploymentComplete"
AGGREGATED_READY_CONDITION = f"{{.status.state}}={AGGREGATED_READY_STATE}"
