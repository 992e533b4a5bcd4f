"""The Kubernetes kind an endpoint is, DPD or aggregated: the inference operator's
InferenceEndpointConfig."""

API_VERSION = "inference.sagemaker.aws.amazon.com/v1"
KIND = "InferenceEndpointConfig"

# What the operator says once both roles serve (AWS's DPD guide, which reads it from
# `.status.conditions[0].message`). The CRD declares `status.conditions` as standard Kubernetes
# conditions but names no condition type, so no `?(@.type==...)` filter can be written against
# a documented type; matching the message among every condition does not depend on their order.
READY_MESSAGE = "DPD prefill and decode deployments are ready"
# The same, as a JSONPath selecting that condition: present once the endpoint serves.
READY_CONDITION = f"{{.status.conditions[?(@.message=='{READY_MESSAGE}')]}}"

# What the operator says once an endpoint without pdSpec serves: the CRD's `status.state`, whose
# enum ends a rollout at DeploymentComplete (DeploymentPending, DeploymentInProgress,
# DeploymentFailed, DeploymentComplete, then the Deletion* states), written as
# `pulumi.com/waitFor` takes a JSONPath with the value it must equal.
AGGREGATED_READY_STATE = "DeploymentComplete"
AGGREGATED_READY_CONDITION = f"{{.status.state}}={AGGREGATED_READY_STATE}"
