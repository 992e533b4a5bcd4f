"""The commands a user runs after `pulumi up`, with the stack's real names: no Pulumi here.

The stack exports them as `nextSteps`, and the offline render prints them. Sources: AWS's DPD
guide ("Disaggregated Prefill and Decode for HyperPod inference", SageMaker developer guide,
sagemaker-hyperpod-model-deployment-dpd) for the role label, the ready message, the router URL
(plain HTTP on port 443) and the request body; the AWS CLI reference for `eks
update-kubeconfig`, `s3 sync` and `sagemaker-runtime invoke-endpoint`; huggingface_hub's
`cli/download.py` and `cli/auth.py` for `hf download --exclude` and `hf auth login`, and its
download guide for the `.cache/huggingface/` folder `--local-dir` leaves behind.

Every value a setting gives goes through `shlex.quote` where its command is built, so a pasted
command runs what it says, whatever the stack file holds; the settings' own patterns keep the
usual values plain (`shlex.quote` leaves letters, digits and `@%+=:,./-` as they are). A
comment carries its value on one line (`one_line`), or a newline would end the comment.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from components.core.terminal_text import one_line
from components.endpoint.manifest import MODEL_PATH, router_url

# What the operator says once both roles serve (AWS's DPD guide, which reads it from
# `.status.conditions[0].message`). The CRD declares `status.conditions` as standard Kubernetes
# conditions but names no condition type, so no `?(@.type==...)` filter can be written against a
# documented type; matching the message among every condition does not depend on their order.
READY_MESSAGE = "DPD prefill and decode deployments are ready"
CONDITION_MESSAGES = "{.status.conditions[*].message}"
# The label the operator puts on each model pod, `prefill` or `decode` (AWS's DPD guide). The
# guide says the operator runs each role as a Deployment but never names those Deployments, so
# the commands select pods by this label rather than guess a Deployment's name.
ROLE_LABEL = "inference.sagemaker.aws.amazon.com/dpd-role"
# How often the wait asks the API server again.
POLL_SECONDS = 30
# vLLM's OpenAI-compatible route, the one AWS's guide sends through the router.
ROUTER_PATH = "v1/chat/completions"
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


def _comment(text: str) -> str:
    return f"# {one_line(text)}"


def upload_weights(model_name: str, weights_uri: str) -> list[str]:
    """Download from Hugging Face into a local directory, then copy it to the model prefix."""
    local = shlex.quote(model_name)
    repository = hugging_face_repository(model_name)
    steps = []
    if repository is not None:
        if repository.startswith(GATED_PUBLISHERS):
            steps.append(
                _comment(
                    f"{repository} is gated: accept its licence on huggingface.co/{repository}, "
                    "then log in with a read token"
                )
            )
        steps += [
            "hf auth login",
            # Meta's repositories also ship the weights in their own format under original/.
            f"hf download {shlex.quote(repository)} --local-dir {local} --exclude 'original/*'",
        ]
    else:
        steps.append(
            _comment(f"put the model's files (config.json, *.safetensors, ...) in {local}/")
        )
    steps.append(f"aws s3 sync {local} {shlex.quote(weights_uri)} --exclude '.cache/*'")
    return steps


def endpoint_steps(target: EndpointTarget, region: str) -> dict[str, Any]:
    name, ns = shlex.quote(target.name), f"-n {shlex.quote(target.namespace)}"
    in_region = f"--region {shlex.quote(region)}"
    steps: dict[str, Any] = {}
    if target.weights_uri is not None:
        steps["uploadWeights"] = upload_weights(target.model_name, target.weights_uri)
    # The endpoint object exists once `pulumi up` returns, so polling it cannot fail on a name
    # the operator has not created yet, as `kubectl wait` on its Deployments or pods would.
    steps["waitUntilReady"] = [
        f"kubectl get pods {ns} -l {ROLE_LABEL}",
        f"until kubectl get inferenceendpointconfig {name} {ns} "
        f"-o jsonpath={shlex.quote(CONDITION_MESSAGES)} | grep -q {shlex.quote(READY_MESSAGE)}; "
        f"do sleep {POLL_SECONDS}; done",
    ]
    steps["readyMessage"] = READY_MESSAGE
    body = shlex.quote(_body(target.invocation_path))
    if target.sagemaker_endpoint:
        steps["invokeSageMaker"] = (
            "aws sagemaker-runtime invoke-endpoint "
            f"--endpoint-name {shlex.quote(target.sagemaker_endpoint)} {in_region} "
            f"--content-type application/json --cli-binary-format raw-in-base64-out "
            f"--body {body} answer.json && cat answer.json"
        )
    url = shlex.quote(f"{router_url(target.name, target.namespace)}/{ROUTER_PATH}")
    steps["invokeRouter"] = (
        f"kubectl run {shlex.quote(f'curl-{target.name}')} --rm -it --restart=Never "
        f"--image=curlimages/curl {ns} -- curl -s {url} -H 'Content-Type: application/json' "
        f"-d {shlex.quote(_body(None))}"
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
    in_region = f"--region {shlex.quote(region)}"
    return {
        "kubeconfig": f"aws eks update-kubeconfig --name {shlex.quote(cluster)} {in_region}",
        "endpoints": {f"{t.namespace}/{t.name}": endpoint_steps(t, region) for t in endpoints},
        "metrics": metrics,
    }
