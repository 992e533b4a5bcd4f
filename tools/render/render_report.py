"""What the offline render writes: Kubernetes manifests, resources.json, sizing.json, and a
summary."""

import json
from pathlib import Path
from textwrap import TextWrapper, shorten
from typing import Any

from components.core.units import format_bytes
from components.endpoint.environment import PD_BUFFER_SIZE
from components.endpoint.flags import canonical_flag, flag_value, split_flags
from components.endpoint.generation import stable_address
from components.endpoint.manifest import API_VERSION, ENDPOINT_LABEL, KIND
from components.endpoint.routing import ROUTER_PORT, router_url
from components.operator.versions import ADDON_NAME, MINIMUM_OPERATOR
from components.sizing.checks import SizingReport
from infra.endpoint_predictions import EndpointPrediction
from tools.render import yaml_io
from tools.render.graph import mermaid, resource_counts
from tools.render.render import RenderResult
from tools.render.render_output import replace_render
from tools.reports.cost_report import cost_headline, cost_lines, cost_notes
from tools.reports.prediction_report import prediction_brief, prediction_lines
from tools.reports.sizing_report import sizing_table

ENDPOINT_CONFIG_TYPE = f"kubernetes:{API_VERSION}:{KIND}"
HEAD = ("apiVersion", "kind", "metadata")
# The summary's widest line and most warnings shown; the rest are in plan.md.
WIDTH = 160
SHOWN_WARNINGS = 5
NEXT = "the commands that load the weights, wait for the endpoint and send it a first request"
_WRAPPED = TextWrapper(WIDTH, subsequent_indent="  ", break_on_hyphens=False)
HEADLINE = "Rendered stack '{}' offline: the program ran under mocks; nothing was deployed."


def _sorted(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


def kubernetes_objects(result: RenderResult) -> list[dict[str, Any]]:
    """Every Kubernetes object the stack creates, as `kubectl apply` would take it."""
    objects = []
    for resource in result.resources:
        inputs = resource.inputs
        if resource.type.startswith("kubernetes:") and {"apiVersion", "kind"} <= inputs.keys():
            head = {key: _sorted(inputs[key]) for key in HEAD if key in inputs}
            rest = {k: v for k, v in inputs.items() if k not in HEAD}
            objects.append({**head, **_sorted(rest)})
    return objects


def _manifest_file(obj: dict[str, Any]) -> str:
    metadata = obj.get("metadata", {})
    parts = [metadata.get("namespace"), obj["kind"].lower(), metadata.get("name")]
    return ".".join(p for p in parts if p) + ".yaml"


def write_render(
    result: RenderResult,
    out: Path,
    sizing_json: dict[str, Any],
    plan: list[str],
    found: list[str],
) -> list[Path]:
    """Write the render's files to `out`, in place of an earlier render's; return the
    manifests written. plan.md: `plan`, the markdown of the endpoints' predictions, then
    `found`, the render's `details`."""
    manifests = {
        f"manifests/{_manifest_file(obj)}": yaml_io.dump(obj) for obj in kubernetes_objects(result)
    }
    resources = [{**r.as_json(), "inputs": _sorted(r.inputs)} for r in result.resources]
    replace_render(
        out,
        {
            **manifests,
            "resources.json": json.dumps(resources, indent=2) + "\n",
            "sizing.json": json.dumps(sizing_json, indent=2) + "\n",
            "graph.mmd": mermaid(resources),
            # The render in full as an indented code block, which no line in it can end.
            "plan.md": "\n".join(
                [*plan, "", "## The render in full", "", *(f"    {x}" if x else "" for x in found)]
            )
            + "\n",
        },
    )
    return [out / name for name in manifests]


def _role(name: str, role_spec: dict, scaling: dict | None) -> tuple[str, int]:
    """A role's pod count (its range when it autoscales) and the most GPUs it claims; an
    adopted object may leave each to the CRD's defaults."""
    gpus = int((role_spec.get("resources") or {}).get("limits", {}).get("nvidia.com/gpu", 0))
    replicas = role_spec.get("replicas", 1)
    if scaling is None:
        return f"{name} {replicas}x{gpus} GPU", replicas * gpus
    low, high = scaling.get("minReplicaCount", 1), scaling.get("maxReplicaCount", 5)
    return f"{name} {low}-{high}x{gpus} GPU (starts at {replicas})", high * gpus


def _placement(spec: dict[str, Any]) -> str:
    if "instanceType" in spec:
        return spec["instanceType"]
    if "instanceTypes" in spec:
        return " or ".join(spec["instanceTypes"])
    return "the nodes its nodeAffinity picks" if spec.get("nodeAffinity") else "any GPU node"


def _endpoint_lines(obj: dict[str, Any]) -> list[str]:
    spec, meta = obj["spec"], obj["metadata"]
    worker = spec["worker"]
    flags = {canonical_flag(n): flag_value(t) for n, t in split_flags(worker.get("args", [])) if n}
    tp = flags.get("--tensor-parallel-size") or "?"
    name, namespace = meta["labels"][ENDPOINT_LABEL], meta["namespace"]
    sagemaker = spec.get("endpointName")
    routing = spec.get("intelligentRoutingSpec") or {}
    routed = "pdSpec" in spec or routing.get("enabled") is True
    strategy = routing.get("routingStrategy", "prefixaware")
    if routed:
        # With rollout newName, the stack's alias of the generation's router comes first.
        alias = (
            f"http://{stable_address(name, namespace)}:{ROUTER_PORT}, "
            if meta["name"] != name
            else ""
        )
        address = f"    address {alias}the router {router_url(meta['name'], namespace)}"
    else:
        reach = f"its SageMaker endpoint {sagemaker} or " if sagemaker else ""
        address = f"    no router: reached through {reach}its pods (app={meta['name']})"
    pd = spec.get("pdSpec")
    if pd is None:
        # Aggregated: one role, its GPUs in worker.resources, its scaling at the top level.
        role = {"replicas": spec.get("replicas", 1), "resources": worker.get("resources")}
        serving, gpus = _role("serving", role, spec.get("autoScalingSpec"))
        strategy = f", {strategy}" if routed else ""
        layout = f"    aggregated: {serving}, at most {gpus} GPUs, TP {tp}{strategy}"
    else:
        env = {e["name"]: e.get("value") for e in worker.get("environmentVariables", [])}
        buffer = env.get(PD_BUFFER_SIZE, "")
        scaling = pd.get("autoScalingSpec", {})
        prefill, prefill_gpus = _role(
            "prefill", pd["prefillSpec"], scaling.get("prefillAutoScaling")
        )
        decode, decode_gpus = _role(
            "decode", pd["decodingSpec"], scaling.get("decodingAutoScaling")
        )
        layout = (
            f"    {prefill}, {decode}, at most {prefill_gpus + decode_gpus} GPUs, "
            f"TP {tp}, routingThreshold {pd.get('routingThreshold', 4096)}, {strategy}, "
            f"PD buffer {format_bytes(int(buffer)) if buffer.isdigit() else 'the operator default'}"
        )
    return [
        f"  {namespace}/{name}  model {spec['modelName']} on {_placement(spec)}",
        f"    object {meta['name']}" + (f", SageMaker endpoint {sagemaker}" if sagemaker else ""),
        layout,
        address,
    ]


def _operator_lines(operator: dict[str, Any] | None) -> list[str]:
    if operator is None:
        return []
    addon = operator.get("addonVersion")
    how = "installed by this stack" if operator["installedByThisStack"] else "already installed"
    lines = [
        "",
        "Inference operator:",
        f"  HyperPod Inference Operator {operator['operatorVersion']}"
        + (f" (EKS add-on {ADDON_NAME} {addon})" if addon else "")
        + f", {how}; DPD needs {MINIMUM_OPERATOR} or later",
    ]
    if "executionRoleArn" in operator:
        lines.append(f"  execution role {operator['executionRoleArn']}")
        lines.append(f"  TLS certificates in s3://{operator['tlsCertificateBucket']}")
    return lines


def _observability_lines(observability: dict[str, Any] | None) -> list[str]:
    if observability is None:
        return ["", "Observability: off (endpoint metrics are not collected)"]
    named = {
        "prometheusEndpoint": "Prometheus query endpoint",
        "grafanaUrl": "Grafana",
        "grafanaDashboardUrl": "DPD dashboard",
    }
    shown = [
        f"  {name} {observability[key]}" for key, name in named.items() if key in observability
    ]
    return ["", "Observability:", *shown]


def report(
    result: RenderResult,
    sizing: list[SizingReport],
    cost: dict[str, Any] | None,
    names: list[str],
    predictions: list[EndpointPrediction | None],
    plan: Path | None = None,
) -> list[str]:
    """The render in full, as `--verbose` prints it and plan.md keeps it; with `plan`, the
    summary a person acts on instead, at most WIDTH characters a line, pointing at `plan`."""
    full = plan is None
    resources = [r.as_json() for r in result.resources]
    by_urn = {r["urn"]: r for r in resources}
    counts = resource_counts(resources)
    lines = [HEADLINE.format(result.stack), ""]
    if full:
        lines += [f"Resources ({sum(counts.values())}), by component:"]
        lines += [
            f"  {count:3d}  {by_urn[urn]['name']:<24} {by_urn[urn]['type']}"
            for urn, count in sorted(counts.items())
        ]
        lines += _operator_lines(result.outputs.get("operator"))
        lines += _observability_lines(result.outputs.get("observability"))
    else:
        tally = ", ".join(f"{by_urn[urn]['name']} {n}" for urn, n in sorted(counts.items()))
        lines += _WRAPPED.wrap(f"Resources ({sum(counts.values())}): {tally}")
    endpoints = result.of_type(ENDPOINT_CONFIG_TYPE)
    lines += ["", "Endpoints:" if endpoints else "Endpoints: none"]
    for resource in endpoints:
        head, named, layout, address = _endpoint_lines(resource.inputs)
        lines += [head, named, layout, address] if full else [head, named, address]
    if full:
        lines += ["", "Sizing (decoder, per GPU and TP rank):"]
        lines += [f"  {line}" for report in sizing for line in sizing_table(report)]
    said = prediction_lines if full else prediction_brief
    found = [f"  {line}" for n, ep in zip(names, predictions, strict=True) for line in said(n, ep)]
    lines += ["", "Predictions (performance model, an estimate):", *found] if found else []
    notes = {f"  {note}" for note in cost_notes(cost)} if cost and not full else set()
    lines += ["", f"Cost ({cost_headline(cost)}):" if cost else "Cost:"]
    lines += [line for line in cost_lines(cost) if line not in notes]
    script = result.outputs.get("nextSteps")
    if full and script is not None:
        lines += ["", "After `pulumi up` (also `pulumi stack output nextSteps`):"]
        lines += [f"  {line}" if line else "" for line in script.splitlines()]
    warnings = result.warnings if full else result.warnings[:SHOWN_WARNINGS]
    lines += ["", f"Warnings ({len(result.warnings)}):"]
    lines += [
        f"  {w}" if full else f"  {shorten(w, WIDTH - 2, placeholder=' ...')}" for w in warnings
    ]
    lines += [] if warnings else ["  none"]
    if full:
        return lines
    if (more := len(result.warnings) - SHOWN_WARNINGS) > 0:
        lines.append(f"  {more} more, and each in full, in {plan}")
    if script is not None:
        lines += ["", f"Next: `pulumi up`, then `pulumi stack output nextSteps`: {NEXT}"]
    return [*lines, "", f"In full, the sizing and cost notes too: {plan}, or --verbose"]
