"""The commands a user runs after `pulumi up`, with the stack's real names: no Pulumi here.

The stack exports them as `nextSteps`, and the offline render prints them. Sources: AWS's DPD
guide ("Deploy models with disaggregated prefill and decode", SageMaker HyperPod docs) for the
ready message, the router URL (plain HTTP on port 443) and the request body; the AWS CLI
reference for `eks update-kubeconfig` and `sagemaker-runtime invoke-endpoint`; the Hugging Face
CLI reference for `hf download`.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from components.endpoint.manifest import MODEL_PATH, router_url

# Where the operator reports readiness, and what it says (AWS's DPD guide).
READY_MESSAGE = "DPD prefill and decode deployments are ready"
READY_JSONPATH = "{.status.conditions[0].message}"
# vLLM's OpenAI-compatible route, the one AWS's guide sends through the router.
ROUTER_PATH = "v1/chat/completions"
# Model pods pull an image of several GiB and load the weights: allow for it.
WAIT_TIMEOUT = "60m"
PROMPT = "What is disaggregated prefill and decode, in one sentence?"
# Hugging Face organisations of the model families the sizing catalog knows.
HF_PUBLISHERS = {
    "llama-": "meta-llama",
    "qwen": "Qwen",
    "mixtral-": "mistralai",
    "deepseek-": "deepseek-ai",
    "gpt-oss-": "openai",
}
# Llama repositories are gated: each user accepts Meta's licence on the model page first.
GATED_PUBLISHERS = ("meta-llama",)


@dataclass(frozen=True)
class EndpointTarget:
    name: str
    namespace: str
    model_name: str
    # The SageMaker endpoint the operator creates; None when it creates none.
    sagemaker_endpoint: str | None
    invocation_path: str | None
    # s3://bucket/prefix/ when the weights are read from S3, else None.
    weights_uri: str | None


def _body(path: str | None) -> str:
    """A small request for the worker's invocation path, as JSON."""
    if path is not None and path.endswith("completions") and "chat" not in path:
        request: dict[str, Any] = {"prompt": PROMPT}
    else:
        request = {"messages": [{"role": "user", "content": PROMPT}]}
    return json.dumps({"model": MODEL_PATH, **request, "max_tokens": 64})


def hugging_face_repository(model_name: str) -> str | None:
    """The Hugging Face repository a model name most likely comes from, if its family is known."""
    for prefix, publisher in HF_PUBLISHERS.items():
        if model_name.lower().startswith(prefix):
            return f"{publisher}/{model_name}"
    return None


def upload_weights(model_name: str, weights_uri: str) -> list[str]:
    """Download from Hugging Face into a local directory, then copy it to the model prefix."""
    local = shlex.quote(model_name)
    repository = hugging_face_repository(model_name)
    steps = []
    if repository is not None:
        if repository.startswith(GATED_PUBLISHERS):
            steps.append(
                f"# {repository} is gated: accept its licence on huggingface.co/{repository}, "
                "then log in with a read token"
            )
        steps += [
            "hf auth login",
            # Meta's repositories also ship the weights in their own format under original/.
            f"hf download {repository} --local-dir {local} --exclude 'original/*'",
        ]
    else:
        steps.append(f"# put the model's files (config.json, *.safetensors, ...) in {local}/")
    steps.append(f"aws s3 sync {local} {weights_uri} --exclude '.cache/*'")
    return steps


def endpoint_steps(target: EndpointTarget, region: str) -> dict[str, Any]:
    ns = f"-n {target.namespace}"
    deployments = f"deployment/prefill-{target.name} deployment/decode-{target.name}"
    steps: dict[str, Any] = {}
    if target.weights_uri is not None:
        steps["uploadWeights"] = upload_weights(target.model_name, target.weights_uri)
    steps["waitUntilReady"] = [
        f"kubectl wait --for=condition=Available {deployments} {ns} --timeout={WAIT_TIMEOUT}",
        f"kubectl get inferenceendpointconfig {target.name} {ns} "
        f"-o jsonpath={shlex.quote(READY_JSONPATH)}",
    ]
    steps["readyMessage"] = READY_MESSAGE
    body = shlex.quote(_body(target.invocation_path))
    if target.sagemaker_endpoint:
        steps["invokeSageMaker"] = (
            "aws sagemaker-runtime invoke-endpoint "
            f"--endpoint-name {target.sagemaker_endpoint} --region {region} "
            f"--content-type application/json --cli-binary-format raw-in-base64-out "
            f"--body {body} answer.json && cat answer.json"
        )
    url = f"{router_url(target.name, target.namespace)}/{ROUTER_PATH}"
    steps["invokeRouter"] = (
        f"kubectl run curl-{target.name} --rm -it --restart=Never --image=curlimages/curl "
        f"{ns} -- curl -s {url} -H 'Content-Type: application/json' -d {shlex.quote(_body(None))}"
    )
    return steps


def next_steps(
    *,
    cluster: str,
    region: str,
    endpoints: Sequence[EndpointTarget],
    prometheus_endpoint: str | None = None,
    grafana_url: str | None = None,
) -> dict[str, Any]:
    """What to run once `pulumi up` returns, in order."""
    metrics: dict[str, str] = {}
    if prometheus_endpoint:
        # Amazon Managed Prometheus answers SigV4-signed queries only: Grafana's data source,
        # or awscurl, signs them.
        metrics["prometheusEndpoint"] = prometheus_endpoint
    if grafana_url:
        metrics["grafana"] = grafana_url
    return {
        "kubeconfig": f"aws eks update-kubeconfig --name {cluster} --region {region}",
        "endpoints": {f"{t.namespace}/{t.name}": endpoint_steps(t, region) for t in endpoints},
        "metrics": metrics,
    }
