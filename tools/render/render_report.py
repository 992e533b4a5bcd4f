"""What the offline render writes: Kubernetes manifests, resources.json, sizing.json, and a
summary."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from components.core.units import format_bytes
from components.endpoint.environment import PD_BUFFER_SIZE
from components.endpoint.manifest import API_VERSION, ENDPOINT_LABEL, KIND
from components.endpoint.routing import router_url, stable_router_url
from components.operator.versions import ADDON_NAME, MINIMUM_OPERATOR
from components.sizing.checks import SizingReport
from tools.render import yaml_io
from tools.render.graph import mermaid, resource_counts
from tools.render.next_steps_report import next_steps_lines
from tools.render.render import RenderResult
from tools.render.render_output import replace_render
from tools.reports.cost_report import cost_headline, cost_lines
from tools.reports.sizing_report import sizing_table

ENDPOINT_CONFIG_TYPE = f"kubernetes:{API_VERSION}:{KIND}"
HEAD = ("apiVersion", "kind", "metadata")


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
    result: RenderResult, out: Path, sizing_json: dict[str, Any], plan: list[str]
) -> list[Path]:
    """Write the render's files to `out`, in place of an earlier render's; return the
    manifests written. `plan`: the markdown of the endpoints' predictions, plan.md, which the
    PR comment carries."""
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
            "plan.md": "\n".join(plan) + "\n" if plan else "",
        },
    )
    return [out / name for name in manifests]


def _role(name: str, role_spec: dict, scaling: dict | None) -> tuple[str, int]:
    """A role's pod count (its range when it autoscales) and the most GPUs it claims."""
    gpus = int(role_spec["resources"]["limits"]["nvidia.com/gpu"])
    replicas = role_spec["replicas"]
    if scaling is None:
        return f"{name} {replicas}x{gpus} GPU", replicas * gpus
    low, high = scaling["minReplicaCount"], scaling["maxReplicaCount"]
    return f"{name} {low}-{high}x{gpus} GPU (starts at {replicas})", high * gpus


def _endpoint_lines(obj: dict[str, Any]) -> list[str]:
    spec, meta = obj["spec"], obj["metadata"]
    args = spec["worker"].get("args", [])
    tp = args[args.index("--tensor-parallel-size") + 1] if "--tensor-parallel-size" in args else "?"
    name, namespace = meta["labels"][ENDPOINT_LABEL], meta["namespace"]
    sagemaker = f", SageMaker endpoint {spec['endpointName']}" if "endpointName" in spec else ""
    routing = spec.get("intelligentRoutingSpec")
    address = (
        f"    address {stable_router_url(name, namespace)}, the router "
        f"{router_url(meta['name'], namespace)}"
        if routing
        else "    no router (no routingStrategy): called through its load balancer or SageMaker"
    )
    pd = spec.get("pdSpec")
    if pd is None:
        # Aggregated: one role, its GPUs in worker.resources, its scaling at the top level.
        role = {"replicas": spec.get("replicas", 1), "resources": spec["worker"]["resources"]}
        serving, gpus = _role("serving", role, spec.get("autoScalingSpec"))
        strategy = f", {routing['routingStrategy']}" if routing else ""
        layout = f"    aggregated: {serving}, at most {gpus} GPUs, TP {tp}{strategy}"
    else:
        env = {e["name"]: e.get("value") for e in spec["worker"]["environmentVariables"]}
        scaling = pd.get("autoScalingSpec", {})
        prefill, prefill_gpus = _role(
            "prefill", pd["prefillSpec"], scaling.get("prefillAutoScaling")
        )
        decode, decode_gpus = _role(
            "decode", pd["decodingSpec"], scaling.get("decodingAutoScaling")
        )
        layout = (
            f"    {prefill}, {decode}, at most {prefill_gpus + decode_gpus} GPUs, "
            f"TP {tp}, routingThreshold {pd['routingThreshold']}, "
            f"{routing['routingStrategy']}, "
            f"PD buffer {format_bytes(int(env[PD_BUFFER_SIZE]))}"
        )
    return [
        f"  {namespace}/{name}  model {spec['modelName']} on {spec['instanceType']}",
        f"    generation {meta['name']}{sagemaker}",
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
    lines = [
        "",
        "Observability:",
        f"  Prometheus query endpoint {observability['prometheusEndpoint']}",
    ]
    if "grafanaUrl" in observability:
        lines.append(f"  Grafana {observability['grafanaUrl']}")
    if "grafanaDashboardUrl" in observability:
        lines.append(f"  DPD dashboard {observability['grafanaDashboardUrl']}")
    return lines


def summary(
    result: RenderResult,
    out: Path,
    manifests: list[Path],
    sizing: list[SizingReport],
    cost: dict[str, Any] | None,
    predictions: list[str],
) -> str:
    """`predictions`: the lines of each endpoint's predictions."""
    resources = [r.as_json() for r in result.resources]
    by_urn = {r["urn"]: r for r in resources}
    counts = resource_counts(resources)
    lines = [
        f"Rendered stack '{result.stack}' offline: the program ran under mocks; "
        "nothing was deployed.",
        "",
        f"Resources ({sum(counts.values())}), by component:",
        *(
            f"  {count:3d}  {by_urn[urn]['name']:<24} {by_urn[urn]['type']}"
            for urn, count in sorted(counts.items())
        ),
        *_operator_lines(result.outputs.get("operator")),
        *_observability_lines(result.outputs.get("observability")),
        "",
        "Endpoints:",
    ]
    for resource in result.of_type(ENDPOINT_CONFIG_TYPE):
        lines += _endpoint_lines(resource.inputs)
    lines += ["", "Sizing (decoder, per GPU and TP rank):"]
    lines += [f"  {line}" for report in sizing for line in sizing_table(report)]
    if predictions:
        lines += ["", "Predictions (performance model, an estimate):"]
        lines += [f"  {line}" for line in predictions]
    lines += ["", f"Cost ({cost_headline(cost)}):" if cost else "Cost:", *cost_lines(cost)]
    lines += next_steps_lines(result.outputs.get("nextSteps"))
    lines += ["", f"Warnings ({len(result.warnings)}):"]
    lines += [f"  {w}" for w in result.warnings] or ["  none"]
    lines += [
        "",
        f"Wrote {out / 'resources.json'}, {out / 'sizing.json'}, {out / 'graph.mmd'}, "
        f"{out / 'plan.md'} and "
        f"{len(manifests)} manifests in {out / 'manifests'}",
    ]
    return "\n".join(lines)
