"""The commands a user runs after `pulumi up`, with the stack's real names: no Pulumi here.

Exported as `nextSteps`, one shell script (JSON would escape its strings), so `pulumi stack
output nextSteps` pastes into bash as it is. Sources: AWS's DPD guide for the role label, ready
message, router URL (plain HTTP on 443) and request body; the AWS CLI reference; huggingface_hub's
`cli/download.py` and `cli/auth.py`. Every value a setting gives is `shlex.quote`d where its
command is built, and a comment holds its value on one line (`one_line`), so a pasted command
runs what it says whatever the stack file holds.
"""

import json
import shlex
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from components.core.terminal_text import one_line
from components.endpoint.kind import AGGREGATED_READY_STATE, READY_MESSAGE
from components.endpoint.manifest import ENDPOINT_LABEL, MODEL_PATH

# Every generation's conditions: the endpoint's object is found by its label, which every
# generation carries, so the command stays the same when a change brings a new generation.
CONDITION_MESSAGES = "{.items[*].status.conditions[*].message}"
# An aggregated endpoint's: the state the CRD's status ends a rollout in.
STATE = "{.items[*].status.state}"
# The label the operator puts on each model pod, `prefill` or `decode` (AWS's DPD guide, which
# names no Deployment).
ROLE_LABEL = "inference.sagemaker.aws.amazon.com/dpd-role"
# How often the wait asks again, and for how long: `pulumi up` has waited already, so a wait run
# after it should return at once.
POLL_SECONDS = 30
WAIT_MINUTES = 30
# Where to look when it does not become ready: the diagnostics command and its guide.
DIAGNOSTICS_GUIDE = 'docs/operations.md, "When it does not become ready"'
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
    # The InferenceEndpointConfig, in its generation with rollout newName.
    object_name: str
    model_name: str
    # The SageMaker endpoint the operator creates; None when it creates none.
    sagemaker_endpoint: str | None
    invocation_path: str | None
    # s3://bucket/prefix/ when the weights are read from S3, else None.
    weights_uri: str | None
    # Without pdSpec: no prefill and decode pods to list, another ready signal.
    aggregated: bool = False
    # Where in-cluster callers reach its router across changes; None without a router.
    router_url: str | None = None
    # Rollout newName: a change the operator cannot take gets new names (generation.py), and
    # the old generation serves drain_seconds more.
    renames: bool = False
    drain_seconds: int = 0
    # The name requests give the model (vllm_args.served_model), and the workers' port.
    served_model: str = MODEL_PATH
    port: int = 8000


def _body(path: str | None, model: str = MODEL_PATH) -> str:
    if path is not None and path.endswith("completions") and "chat" not in path:
        request: dict[str, Any] = {"prompt": PROMPT}
    else:
        request = {"messages": [{"role": "user", "content": PROMPT}]}
    return json.dumps({"model": model, **request, "max_tokens": 64})


def hugging_face_repository(model_name: str) -> str | None:
    """The Hugging Face repository a model name most likely comes from, if its family is known."""
    for prefix, publisher in HF_PUBLISHERS.items():
        if model_name.lower().startswith(prefix):
            return f"{publisher}/{model_name}"
    return None


def _comment(text: str) -> str:
    return f"# {one_line(text)}"


def upload_weights(model_name: str, weights_uri: str) -> list[str]:
    local = shlex.quote(model_name)
    repository = hugging_face_repository(model_name)
    steps = []
    prefix = weights_uri.rstrip("/").rsplit("/", 1)[-1]
    if repository is not None and prefix.lower() != model_name.lower():
        steps.append(
            _comment(
                f"modelName {model_name} and the weights' prefix {prefix} name different "
                f"things: check that {repository} is the model the prefix should hold"
            )
        )
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


def ready_signal(target: EndpointTarget) -> tuple[str, str]:
    """The JSONPath that reads whether the endpoint serves, and the text it then holds."""
    if target.aggregated:
        return STATE, AGGREGATED_READY_STATE
    return CONDITION_MESSAGES, READY_MESSAGE


def wait_until_ready(target: EndpointTarget, stack: str) -> str:
    jsonpath, ready = ready_signal(target)
    tries = WAIT_MINUTES * 60 // POLL_SECONDS
    diagnose = (
        f"not ready after {WAIT_MINUTES} minutes: run .venv/bin/hyperpod-dpd diagnose "
        f"--stack {shlex.quote(stack)} --endpoint {shlex.quote(target.name)}, and see "
        f"{DIAGNOSTICS_GUIDE}"
    )
    return (
        f"tries={tries}; until kubectl get inferenceendpointconfig "
        f"-n {shlex.quote(target.namespace)} -l {shlex.quote(f'{ENDPOINT_LABEL}={target.name}')} "
        f"-o jsonpath={shlex.quote(jsonpath)} "
        f"| grep -q {shlex.quote(ready)}; do tries=$((tries - 1)); "
        f'if [ "$tries" -eq 0 ]; then echo {shlex.quote(diagnose)} >&2; break; fi; '
        f"sleep {POLL_SECONDS}; done"
    )


def _region(region: str) -> str:
    return f"--region {shlex.quote(region)}"


def endpoint_steps(target: EndpointTarget, region: str, stack: str) -> dict[str, Any]:
    ns = f"-n {shlex.quote(target.namespace)}"
    steps: dict[str, Any] = {}
    if target.weights_uri is not None:
        steps["uploadWeights"] = upload_weights(target.model_name, target.weights_uri)
    # The endpoint object exists once `pulumi up` returns, so polling it cannot fail on a name
    # the operator has not created yet, as `kubectl wait` on its Deployments or pods would.
    pods = [] if target.aggregated else [f"kubectl get pods {ns} -l {ROLE_LABEL}"]
    steps["waitUntilReady"] = [*pods, wait_until_ready(target, stack)]
    steps["readyMessage"] = ready_signal(target)[1]
    body = shlex.quote(_body(target.invocation_path, target.served_model))
    if target.sagemaker_endpoint:
        steps["invokeSageMaker"] = (
            "aws sagemaker-runtime invoke-endpoint "
            f"--endpoint-name {shlex.quote(target.sagemaker_endpoint)} {_region(region)} "
            f"--content-type application/json --cli-binary-format raw-in-base64-out "
            f"--body {body} answer.json && cat answer.json"
        )
    steps["callers"] = [_comment(line) for line in callers(target)]
    if target.router_url is None:
        # No router: one of the pods, found by the label AWS's CLI finds them by (`app`: the
        # object's name), through a port-forward.
        path = target.invocation_path or ""
        path = path if path.endswith("completions") else ROUTER_PATH
        pods = f"kubectl get pods {ns} -l {shlex.quote(f'app={target.object_name}')} -o name"
        steps["invokePods"] = (
            f'kubectl port-forward {ns} "$({pods} | head -n 1)" {target.port}:{target.port} '
            f">/dev/null & sleep 5; curl -s http://localhost:{target.port}/{path} "
            f"-H 'Content-Type: application/json' "
            f"-d {shlex.quote(_body(path, target.served_model))}; kill $!"
        )
        return steps
    url = shlex.quote(f"{target.router_url}/{ROUTER_PATH}")
    steps["invokeRouter"] = (
        f"kubectl run {shlex.quote(f'curl-{target.name}')} --rm -it --restart=Never "
        f"--image=curlimages/curl {ns} -- curl -s {url} -H 'Content-Type: application/json' "
        f"-d {shlex.quote(_body(None, target.served_model))}"
    )
    return steps


def callers(target: EndpointTarget) -> list[str]:
    if not target.renames:
        text = (
            "rollout keepName: the names above stay. A change the operator cannot take "
            "(`hyperpod-dpd diff` says which) deletes the endpoint and creates it again: no "
            "answers until it is ready, and its load balancer comes back under a new hostname."
        )
    else:
        sagemaker = target.sagemaker_endpoint
        text = (
            "rollout newName: a change the operator cannot take starts a new generation, with "
            f"its own load balancer{' and SageMaker endpoint name' if sagemaker else ''} (this "
            f"script prints them after that `pulumi up`); {target.router_url or 'callers'} "
            f"move to it once it serves, and this one answers {target.drain_seconds} s more "
            "(drainSeconds)."
        )
    return textwrap.wrap(text, 96, break_long_words=False, break_on_hyphens=False)


def next_steps(
    *,
    cluster: str,
    region: str,
    endpoints: Sequence[EndpointTarget],
    stack: str = "dev",
    prometheus_endpoint: str | None = None,
    grafana_url: str | None = None,
) -> dict[str, Any]:
    metrics: dict[str, str] = {}
    if prometheus_endpoint:
        # Amazon Managed Prometheus answers SigV4-signed queries only: Grafana's data source,
        # or awscurl, signs them.
        metrics["prometheusEndpoint"] = prometheus_endpoint
    if grafana_url:
        metrics["grafana"] = grafana_url
    steps: dict[str, Any] = {}
    uploaded: dict[str, str] = {}
    for target in endpoints:
        name = f"{target.namespace}/{target.name}"
        steps[name] = endpoint_steps(target, region, stack)
        if target.weights_uri in uploaded:  # one model prefix, one download
            first = uploaded[target.weights_uri]
            steps[name]["uploadWeights"] = [_comment(f"the same weights as {first}, above")]
        elif target.weights_uri:
            uploaded[target.weights_uri] = name
    return {
        "kubeconfig": f"aws eks update-kubeconfig --name {shlex.quote(cluster)} {_region(region)}",
        "endpoints": steps,
        "metrics": metrics,
    }


# The order a user goes through an endpoint's steps, and what each is for.
ENDPOINT_STEPS = (
    ("uploadWeights", "put the weights in the model prefix (start once the bucket exists)"),
    ("waitUntilReady", "wait until it serves (pulumi up has waited for it already)"),
    ("invokeSageMaker", "one request through the SageMaker endpoint"),
    ("invokeRouter", "one request through its router, from inside the cluster"),
    ("invokePods", "one request to one of its pods, through a port-forward"),
    ("callers", "what a change does to its callers"),
)


def next_steps_script(steps: dict[str, Any]) -> str:
    lines = ["# Reach the cluster:", steps["kubeconfig"]]
    for name, endpoint in steps["endpoints"].items():
        for key, purpose in ENDPOINT_STEPS:
            if key in endpoint:
                commands = endpoint[key]
                lines += ["", _comment(f"{name}: {purpose}")]
                lines += [commands] if isinstance(commands, str) else commands
    metrics = steps["metrics"]
    if metrics:
        lines += ["", "# Metrics and dashboards:"]
        if "grafana" in metrics:
            lines.append(_comment(f"  Grafana {metrics['grafana']}"))
        lines.append(
            _comment(f"  Amazon Managed Prometheus {metrics['prometheusEndpoint']} (SigV4 queries)")
        )
    return "\n".join(lines) + "\n"
